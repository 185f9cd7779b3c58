import Foundation

/// What the downloads themselves say about the link, and whether another should start now:
/// the rule behind the download queue's concurrency (issue 51), on an injected clock.
///
/// - **Throughput**: the bytes received while at least one body was arriving, over that time
///   (the link's rate: one body alone takes all of an uncontended link, several share it). Time
///   spent waiting for first bytes does not count, so a latency-bound link is not mistaken for a
///   slow one.
/// - **Round trip**: from a request's start to its first byte, the least of the last few (a
///   first byte queued behind other bodies on a busy link says nothing about the path).
/// - **Outstanding bytes**: what the running downloads have still to receive (their announced
///   length, else a typical image's, minus what arrived).
///
/// Another download starts while the outstanding bytes are less than the link carries in one
/// round trip (``admitsAnother(at:)``): its first byte then arrives as the others end, so the
/// link never idles, and no more share it than that. On a slow link (3G: 97.5 KB/s, a 0.4 s
/// round trip carries 39 KB; an image is 140 KB) images arrive one after another at the link's
/// full rate, the first after one image's time instead of twelve's, the last no later; on a
/// fast one (LTE: 625 KB per round trip) five or six run at once; with nothing measured yet,
/// as many as the queue allows.
struct LinkEstimate: Sendable, Equatable {
    /// Busy time kept before older measurements count half (the estimate follows a link that
    /// changes within seconds).
    static let window: TimeInterval = 2
    /// Round trips kept.
    static let roundTripSamples = 8

    private struct Transfer: Sendable, Equatable {
        var expected: Int?
        var received = 0
        var hasBody = false
    }

    private var transfers: [Int: Transfer] = [:]
    /// Bodies arriving now.
    private var arriving = 0
    private var busySince: TimeInterval?
    private var busyTime: TimeInterval = 0
    private var busyBytes: Double = 0
    private var roundTrips: [TimeInterval] = []
    /// Mean body size of finished transfers (exponentially weighted).
    private(set) var typicalBytes: Double?

    init() {}

    /// Downloads running (sent and not ended).
    var runningCount: Int { transfers.count }

    /// The link's rate in bytes per second at `now`, once bodies have arrived for a measurable time.
    func throughput(at now: TimeInterval) -> Double? {
        let time = busyTime + (busySince.map { max(0, now - $0) } ?? 0)
        guard time >= 0.001, busyBytes > 0 else { return nil }
        return busyBytes / time
    }

    /// The least recent time from a request's start to its first byte.
    var roundTrip: TimeInterval? { roundTrips.min() }

    /// What the running downloads have still to receive.
    var outstandingBytes: Double {
        transfers.values.reduce(0) { total, transfer in
            let expected = transfer.expected.map(Double.init) ?? typicalBytes ?? 0
            return total + max(0, expected - Double(transfer.received))
        }
    }

    /// Download `id` was sent.
    mutating func sent(_ id: Int) {
        transfers[id] = Transfer()
    }

    /// Download `id`'s body is announced as `length` bytes (until one completes, that is the
    /// typical size too).
    mutating func expect(_ length: Int, of id: Int) {
        guard length > 0, transfers[id] != nil else { return }
        transfers[id]?.expected = length
        if typicalBytes == nil { typicalBytes = Double(length) }
    }

    /// Download `id`, sent at `sentAt`, received its first body bytes at `now`.
    mutating func bodyStarted(_ id: Int, sentAt: TimeInterval, at now: TimeInterval) {
        guard transfers[id]?.hasBody == false else { return }
        transfers[id]?.hasBody = true
        roundTrips.append(max(0, now - sentAt))
        if roundTrips.count > Self.roundTripSamples { roundTrips.removeFirst(roundTrips.count - Self.roundTripSamples) }
        if arriving == 0 { busySince = now }
        arriving += 1
    }

    /// `count` body bytes of download `id` arrived at `now`.
    mutating func received(_ count: Int, of id: Int, at now: TimeInterval) {
        // A busy period that goes on (downloads overlapping) is counted as it goes.
        fold(at: now)
        busyBytes += Double(count)
        transfers[id]?.received += count
    }

    /// Download `id` ended at `now` (`complete`: its whole body arrived).
    mutating func ended(_ id: Int, complete: Bool, at now: TimeInterval) {
        guard let transfer = transfers.removeValue(forKey: id) else { return }
        guard transfer.hasBody else { return }
        fold(at: now)
        arriving -= 1
        if arriving == 0 { busySince = nil }
        if complete, transfer.received > 0 {
            typicalBytes = typicalBytes.map { $0 * 0.75 + Double(transfer.received) * 0.25 } ?? Double(transfer.received)
        }
    }

    /// Adds the busy time up to `now`; beyond ``window``, what was measured before counts half
    /// (the bytes arriving at `now` belong to the time added, after the halving).
    private mutating func fold(at now: TimeInterval) {
        guard let since = busySince, now > since else { return }
        let elapsed = now - since
        if busyTime + elapsed > Self.window {
            busyTime /= 2
            busyBytes /= 2
        }
        busyTime += elapsed
        busySince = now
    }

    /// Whether another download should start now: nothing runs, or the link is not measured
    /// yet, or the running downloads' outstanding bytes are less than one round trip carries.
    func admitsAnother(at now: TimeInterval) -> Bool {
        guard !transfers.isEmpty, let throughput = throughput(at: now), let roundTrip else { return true }
        return outstandingBytes < throughput * roundTrip
    }

    /// Downloads to run at once at `now`, at most `maximum`: the running ones, plus one when
    /// ``admitsAnother(at:)``; `maximum` while the link is not measured.
    func concurrency(maximum: Int, at now: TimeInterval) -> Int {
        guard throughput(at: now) != nil, roundTrip != nil else { return maximum }
        return min(maximum, max(1, runningCount + (admitsAnother(at: now) ? 1 : 0)))
    }
}
