import Foundation
import ToolSupport

/// The state of one emulated ``LinkProfile``, shared by every connection of a server: the
/// downlink as a token bucket without burst (a virtual clock of when the link is next free:
/// each piece of a response books the link for its bytes at the bandwidth, in the order they
/// ask), and the seeded draws of lost packets and dropped connections.
///
/// The downlink is work-conserving, as a router's queue is: it never idles while some piece is
/// ready. A connection books its next piece only when it writes the previous one (a delay after
/// it left), so a piece ready at a later time (a new response's head) may book the link first,
/// leaving it idle before it; a piece that was ready during that idle time, booked later, takes
/// it (``book(_:readyAt:)`` fills the gap) instead of queueing after the later piece.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
final class EmulatedLink: Sendable {
    typealias Instant = ContinuousClock.Instant

    let profile: LinkProfile
    /// Bytes written at once: about 10 ms of the bandwidth (at least a packet, at most 64 KB),
    /// so a connection that closes wastes little of the link.
    let pieceSize: Int
    private let state: Protected<State>

    fileprivate struct State {
        /// When the downlink is free again.
        var freeAt: Instant
        /// Idle times before later bookings, earliest first (the last few).
        var gaps: [(start: Instant, end: Instant)] = []
        var random: UInt64
        var bookedBytes = 0
    }

    init(profile: LinkProfile, seed: UInt64 = 0x5EED) {
        self.profile = profile
        if let bits = profile.downlinkBitsPerSecond {
            pieceSize = min(max(bits / 8 / 100, 1_460), 65_536)
        } else {
            pieceSize = 65_536
        }
        state = Protected(State(freeAt: ContinuousClock.now, random: seed))
    }

    var delay: Duration { .milliseconds(profile.delayMilliseconds) }

    /// Bytes that took the downlink so far (heads, retransmissions and pieces of responses the
    /// client had already given up included).
    var bookedBytes: Int { state.withLock { $0.bookedBytes } }

    /// Books the downlink for `bytes` ready to leave at `ready`: returns when their last bit has
    /// left (later when others booked the link first). A lost packet (1,460 bytes) is sent again:
    /// it books the link twice and the piece leaves a round trip late.
    func book(_ bytes: Int, readyAt ready: Instant) -> Instant {
        let packets = max(1, (bytes + 1_459) / 1_460)
        return state.withLock { state in
            var lost = 0
            if profile.packetLoss > 0 {
                for _ in 0..<packets where state.draw() < profile.packetLoss { lost += 1 }
            }
            let retransmission = lost > 0 ? profile.roundTrip : .zero
            state.bookedBytes += bytes + lost * 1_460
            guard let bits = profile.downlinkBitsPerSecond, bits > 0 else { return ready + retransmission }
            let duration = Duration.nanoseconds(Int64(Double(bytes + lost * 1_460) * 8 / Double(bits) * 1e9))
            if let index = state.gaps.firstIndex(where: { max($0.start, ready) + duration <= $0.end }) {
                // Ready while the link idled before a later booking: it leaves then.
                let gap = state.gaps[index]
                let start = max(gap.start, ready)
                var rest: [(start: Instant, end: Instant)] = []
                if start > gap.start { rest.append((gap.start, start)) }
                if start + duration < gap.end { rest.append((start + duration, gap.end)) }
                state.gaps.replaceSubrange(index...index, with: rest)
                return start + duration + retransmission
            }
            let start = max(ready, state.freeAt)
            if start > state.freeAt {
                state.gaps.append((state.freeAt, start))
                if state.gaps.count > 32 { state.gaps.removeFirst(state.gaps.count - 32) }
            }
            state.freeAt = start + duration
            return state.freeAt + retransmission
        }
    }

    /// Where a response of `length` body bytes is cut, when its connection is drawn to drop.
    func dropPoint(forLength length: Int) -> Int? {
        guard profile.droppedConnections > 0, length > 1 else { return nil }
        return state.withLock { state in
            guard state.draw() < profile.droppedConnections else { return nil }
            return Int(state.draw() * Double(length - 1))
        }
    }
}

extension EmulatedLink.State {
    /// A uniform draw in `0..<1` (SplitMix64).
    mutating func draw() -> Double {
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }
}

/// One response crossing an ``EmulatedLink``: the request arrives a delay after it was sent,
/// each piece of the response leaves when the downlink is free for it and arrives a delay later.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
struct LinkTransfer {
    let link: EmulatedLink
    /// When the next piece is ready to leave the server.
    private var ready: EmulatedLink.Instant

    /// A transfer for a request the loopback received at `received` (when the client sent it),
    /// answered after `serverTime` (the route's latency) once it crossed the uplink.
    init(link: EmulatedLink, receivedAt received: EmulatedLink.Instant, serverTime: Duration) {
        self.link = link
        ready = received + link.delay + serverTime
    }

    /// How long until the next piece is ready to leave the server: book the link only then, so
    /// that a piece never holds the downlink before it exists (the link stays work-conserving).
    var untilReady: Duration {
        max(.zero, ready - ContinuousClock.now)
    }

    /// Books the link for the next `bytes` (the response head counts as a piece), once they are
    /// ready (``untilReady`` has passed); returns how long to wait before writing them: until
    /// they would have crossed the link.
    mutating func waitBeforeWriting(_ bytes: Int) -> Duration {
        ready = link.book(bytes, readyAt: min(ready, ContinuousClock.now))
        return max(.zero, (ready + link.delay) - ContinuousClock.now)
    }
}
