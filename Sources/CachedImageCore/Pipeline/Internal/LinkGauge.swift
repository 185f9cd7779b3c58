import Foundation

/// What the downloads themselves say about the link, and what that means for the download queue
/// (issue 51): how many transfers it needs at once, which running transfers count against that,
/// and which should step aside. A value fed by ``LinkScheduler`` with times from a ``UptimeClock``,
/// so every rule is tested on a timeline of its own.
///
/// - **Capacity**: the aggregate rate of every running body (progress bytes, not completed
///   images), over windows of one round trip (at least ``minimumWindow``) while at least one
///   body arrives. It counts only
///   once two windows in a row agree within ``stableGrowth``: a TCP connection in slow start
///   doubles its rate every round trip, so a link that still speeds up is not yet measured (it
///   would look slow). A faster window raises it at once; a slower one lowers it only once the
///   estimate is ``capacityLifetime`` old.
/// - **Round trip**: from a request's start to its first byte (head or body), the least of the
///   last few (a first byte queued behind other bodies says nothing about the path).
/// - **Typical image**: the announced length of whole bodies (exponentially weighted).
/// - **Per-transfer ceiling**: when two windows agree on a rate well below the capacity
///   (``stableGrowth`` times), the link had room that the transfers did not take: each is held
///   back elsewhere (a server or CDN that sends each response at its own pace, a
///   per-connection limit). Their rate each is the ceiling; it holds ``capacityLifetime`` from the
///   last window that confirmed it (while it holds, the capacity is not lowered); a window whose
///   transfers each went faster lifts it. A window whose transfers each went much slower than
///   the ceiling (more of them, no more in all), or the queue's ``maximum`` taking much less than
///   the capacity, means the link itself is slower now: the capacity becomes that rate.
///
/// Until capacity, round trip and typical image are known, the queue runs its maximum. Then it
/// runs ``concurrency(maximum:)`` transfers: enough to keep the link's bandwidth-delay product
/// in flight given the typical image, plus one, at least two, and, under a per-transfer
/// ceiling, enough transfers at that ceiling to fill the capacity; at most the maximum. A running
/// transfer counts against that only while it can hold the link (``counts(_:at:)``): not a
/// conditional request before any body (a `304` is a head), not one with no progress for
/// ``stallTime`` (stalled), not one with a round trip's bytes or less still to come (it ends
/// before the next one's first byte could arrive; on a latency-bound link that is every
/// transfer, so the maximum runs).
struct LinkGauge: Sendable {
    /// Two windows in a row whose rates differ by less than this factor measure the link.
    static let stableGrowth = 1.5
    /// The shortest measuring window, in seconds: a fifth of a second, so that bursts of a
    /// busy device's scheduling (bodies delivered in clumps) do not make two windows disagree.
    /// Never shorter than a round trip, so slow start still at least doubles from one to the next.
    static let minimumWindow: TimeInterval = 0.2
    /// How long a capacity holds before a lower measurement may replace it, in seconds.
    static let capacityLifetime: TimeInterval = 30
    /// Round trips kept.
    static let roundTripSamples = 8
    /// A transfer with no progress for this many round trips, and at least ``minimumStallTime``, is stalled.
    static let stallRoundTrips = 4.0
    static let minimumStallTime: TimeInterval = 1

    struct Transfer: Sendable, Equatable {
        var conditional: Bool
        var sentAt: TimeInterval
        var firstByteAt: TimeInterval?
        var lastProgressAt: TimeInterval
        var received = 0
        /// The body's announced length (of this response: a `206`'s is the rest).
        var expected: Int?
        var hasBody = false
        /// Whether stopping it keeps its bytes for a `Range` request (``head(_:status:expectedLength:resumable:at:)``).
        var resumable = false
    }

    private(set) var transfers: [Int: Transfer] = [:]
    private var roundTrips: [TimeInterval] = []
    /// The link's rate in bytes per second, once measured.
    private(set) var capacity: Double?
    private var capacityAt: TimeInterval = 0
    /// The typical whole body, in bytes.
    private(set) var typicalBytes: Double?
    private var windowStart: TimeInterval?
    private var windowBytes = 0
    /// The previous window's rate, while bodies have been arriving since.
    private var lastRate: Double?
    /// The most transfers the queue runs at once (a ceiling is believed only below it).
    let maximum: Int
    /// The most a transfer has received per second lately when the link had room for more.
    private(set) var transferCeiling: Double?
    private var ceilingAt: TimeInterval = 0

    init(maximum: Int = 12) {
        self.maximum = maximum
    }

    /// The least recent time from a request's start to its first byte.
    var roundTrip: TimeInterval? { roundTrips.min() }

    /// The bytes the link carries in one round trip, once measured.
    var bytesPerRoundTrip: Double? {
        guard let capacity, let roundTrip else { return nil }
        return capacity * roundTrip
    }

    /// How long without progress makes a transfer stalled.
    var stallTime: TimeInterval {
        max(Self.minimumStallTime, Self.stallRoundTrips * (roundTrip ?? Self.minimumStallTime / 2))
    }

    // MARK: Events

    /// Transfer `id` was sent at `now` (`conditional`: it carries validators; a `304` answers it).
    mutating func sent(_ id: Int, conditional: Bool, at now: TimeInterval) {
        transfers[id] = Transfer(conditional: conditional, sentAt: now, lastProgressAt: now)
    }

    /// Transfer `id`'s head arrived at `now`: its status, announced body length, and whether
    /// its bytes, if it stops, are kept for a `Range` request.
    mutating func head(_ id: Int, status: Int, expectedLength: Int?, resumable: Bool = true, at now: TimeInterval) {
        guard transfers[id] != nil else { return }
        firstByte(id, at: now)
        transfers[id]?.resumable = resumable
        guard (200..<300).contains(status), let length = expectedLength, length > 0 else { return }
        transfers[id]?.expected = length
        if status == 200 { learnTypical(length) }
    }

    /// `count` body bytes of transfer `id` arrived at `now`.
    mutating func received(_ count: Int, of id: Int, at now: TimeInterval) {
        guard var transfer = transfers[id], count > 0 else { return }
        firstByte(id, at: now)
        transfer = transfers[id] ?? transfer
        let starts = !transfer.hasBody
        transfer.hasBody = true
        transfer.received += count
        transfer.lastProgressAt = now
        transfers[id] = transfer
        measure(count, at: now, startsBody: starts)
    }

    /// Transfer `id` ended at `now` (`complete`: its whole body arrived).
    mutating func ended(_ id: Int, complete: Bool, at now: TimeInterval) {
        guard let transfer = transfers.removeValue(forKey: id) else { return }
        if complete, transfer.hasBody, transfer.expected == nil, !transfer.conditional { learnTypical(transfer.received) }
        if !isBodyArriving(at: now) { breakWindows() }
    }

    private mutating func firstByte(_ id: Int, at now: TimeInterval) {
        guard let transfer = transfers[id], transfer.firstByteAt == nil else { return }
        transfers[id]?.firstByteAt = now
        transfers[id]?.lastProgressAt = now
        roundTrips.append(max(0, now - transfer.sentAt))
        if roundTrips.count > Self.roundTripSamples { roundTrips.removeFirst(roundTrips.count - Self.roundTripSamples) }
    }

    private mutating func learnTypical(_ length: Int) {
        typicalBytes = typicalBytes.map { $0 * 0.75 + Double(length) * 0.25 } ?? Double(length)
    }

    // MARK: Capacity

    /// Whether some body, not stalled, is arriving at `now`.
    private func isBodyArriving(at now: TimeInterval) -> Bool {
        transfers.values.contains { $0.hasBody && now - $0.lastProgressAt < stallTime }
    }

    /// Transfers whose body is arriving at `now` (not stalled).
    private func arrivingCount(at now: TimeInterval) -> Int {
        transfers.values.filter { $0.hasBody && now - $0.lastProgressAt < stallTime }.count
    }

    /// Idle time (or only stalled bodies) breaks the measurement: the next window starts afresh.
    private mutating func breakWindows() {
        windowStart = nil
        windowBytes = 0
        lastRate = nil
    }

    private mutating func measure(_ count: Int, at now: TimeInterval, startsBody: Bool) {
        guard let start = windowStart else {
            // The bytes of the event that opens a window arrived before it: not counted.
            windowStart = now
            windowBytes = 0
            return
        }
        windowBytes += count
        let elapsed = now - start
        guard elapsed >= max(roundTrip ?? 0, Self.minimumWindow) else { return }
        let rate = Double(windowBytes) / elapsed
        if let last = lastRate, rate <= last * Self.stableGrowth, rate * Self.stableGrowth >= last {
            // Two windows agree: the link's rate, not a connection still opening its window.
            let measured = max(rate, last)
            let arriving = Double(arrivingCount(at: now))
            if transferCeiling != nil, now - ceilingAt > Self.capacityLifetime { transferCeiling = nil }
            var linkIsSlower = false
            if let ceiling = transferCeiling, arriving > 0 {
                let each = measured / arriving
                if each > ceiling * Self.stableGrowth {
                    transferCeiling = nil // each went faster: not held back at that rate
                } else if each * Self.stableGrowth < ceiling {
                    linkIsSlower = true // more transfers, no more in all: the link holds them
                } else {
                    ceilingAt = now // still held back at that rate
                }
            }
            if let known = capacity, arriving >= Double(maximum), measured * Self.stableGrowth < known {
                linkIsSlower = true // as many as may run take less than the link carried
            }
            if linkIsSlower {
                // The link itself is slower now (Wi-Fi to cellular, a congested cell).
                capacity = measured
                capacityAt = now
                transferCeiling = nil
            } else if let known = capacity, arriving > 0, measured * Self.stableGrowth < known, transferCeiling == nil {
                // The link had room these transfers did not take: each is held back elsewhere.
                transferCeiling = measured / arriving
                ceilingAt = now
            } else if capacity == nil || measured > capacity! || (transferCeiling == nil && now - capacityAt > Self.capacityLifetime) {
                capacity = measured
                capacityAt = now
            } else if measured * Self.stableGrowth >= capacity! {
                capacityAt = now // confirmed
            }
        } else if let known = capacity, rate > known {
            capacity = rate // faster than measured: the link is faster (raising is always safe)
            capacityAt = now
        }
        lastRate = rate
        windowStart = now
        windowBytes = 0
    }

    // MARK: Decisions

    /// Transfers to run at once, at most `maximum`; `nil` while the link is not measured (run
    /// `maximum`).
    func concurrency(maximum: Int) -> Int? {
        guard let bytesPerRoundTrip, let typicalBytes, typicalBytes > 0 else { return nil }
        var needed = Int((bytesPerRoundTrip / typicalBytes).rounded(.up)) + 1
        if let transferCeiling, let capacity, transferCeiling > 0 {
            needed = max(needed, Int((capacity / transferCeiling).rounded(.up)))
        }
        return min(maximum, max(2, needed))
    }

    /// An image that takes longer than this to arrive, in seconds, at the link's rate shared by
    /// the downloads it runs, makes the link slow (``isSlow(maximum:)``).
    static let slowImageTime: TimeInterval = 1

    /// Whether a typical image takes more than ``slowImageTime`` to arrive at the capacity
    /// shared by ``concurrency(maximum:)`` downloads: progressive previews are worth their
    /// decodes then. `nil` while the link is not measured.
    func isSlow(maximum: Int) -> Bool? {
        guard let capacity, capacity > 0, let typicalBytes, let concurrency = concurrency(maximum: maximum) else { return nil }
        return typicalBytes * Double(concurrency) / capacity > Self.slowImageTime
    }

    /// The bytes transfer `id` has still to receive (its announced length, else the typical
    /// image's); `nil` when neither is known.
    func remaining(_ id: Int) -> Double? {
        guard let transfer = transfers[id] else { return nil }
        guard let total = transfer.expected.map(Double.init) ?? typicalBytes else { return nil }
        return max(0, total - Double(transfer.received))
    }

    /// Whether transfer `id` made no progress for ``stallTime`` at `now`; one still waiting for
    /// its first byte (a new connection's handshakes, a head queued behind bodies) for three
    /// times that.
    func isStalled(_ id: Int, at now: TimeInterval) -> Bool {
        guard let transfer = transfers[id] else { return false }
        return now - transfer.lastProgressAt >= (transfer.firstByteAt == nil ? 3 * stallTime : stallTime)
    }

    /// Whether transfer `id` counts against ``concurrency(maximum:)`` at `now`: it may hold the
    /// link for more than a round trip. Not a conditional request before any body, not a
    /// stalled transfer, not one whose remaining bytes the link carries within a round trip.
    func counts(_ id: Int, at now: TimeInterval) -> Bool {
        guard let transfer = transfers[id] else { return false }
        if transfer.conditional, !transfer.hasBody { return false }
        if isStalled(id, at: now) { return false }
        if let bytesPerRoundTrip, let remaining = remaining(id), remaining <= bytesPerRoundTrip { return false }
        return true
    }

    /// Of the counting transfers `running` (each with its priority), the ones that should step
    /// aside (stop, keep their bytes where they may be resumed, and wait again) so that no more
    /// than `limit` hold the link: the lowest priority first; within a priority, the one with the
    /// most still to come first (the one that would hold the link longest: the others complete
    /// sooner, so more of the screen shows sooner), the latest in line among equals (`places`:
    /// each transfer's place in the queue's line, by default its ID); only those not yet halfway
    /// (more to come than they have), and only those whose bytes would be kept (resumable) or
    /// that have none yet. Empty while the link is not measured.
    func pauses(running: [(id: Int, priority: ImageRequest.Priority)], limit: Int, places: [Int: Int] = [:]) -> [Int] {
        guard bytesPerRoundTrip != nil, running.count > limit else { return [] }
        let order = running.sorted { a, b in
            if a.priority != b.priority { return a.priority < b.priority }
            let (left, right) = (remaining(a.id) ?? .infinity, remaining(b.id) ?? .infinity)
            return left != right ? left > right : (places[a.id] ?? a.id) > (places[b.id] ?? b.id)
        }
        var excess = running.count - limit
        var paused: [Int] = []
        for candidate in order where excess > 0 {
            guard let transfer = transfers[candidate.id], let remaining = remaining(candidate.id),
                  Double(transfer.received) < remaining, transfer.resumable || transfer.received == 0 else { continue }
            paused.append(candidate.id)
            excess -= 1
        }
        return paused
    }
}
