import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The download queue's link rule (issue 51): feeds every transfer's events to a ``LinkGauge``
/// on a ``UptimeClock`` and applies its decisions to the ``WorkQueue``: the limit on counting
/// transfers, which running transfers count, and which step aside. Decisions are taken on every
/// event and on a tick (a stalled transfer sends none), and handed to the queue only when they
/// change.
final class LinkScheduler: Sendable {
    /// How often the decisions are taken again while transfers run, in seconds of the clock.
    static let tick: TimeInterval = 0.25

    private struct Entry {
        var ticket: Int
        /// Its place in the queue's line (``WorkQueue/Ticket/place``).
        var place: Int
        var priority: DataLoadPriority
        var keepsBytes: Bool
    }

    private struct State {
        var gauge: LinkGauge
        var entries: [Int: Entry] = [:]
        var nextID = 0
        var appliedLimit: Int?
        var appliedCounts: [Int: Bool] = [:]
        var isTicking = false
    }

    private let queue: WorkQueue
    private let clock: any UptimeClock
    private let maximum: Int
    private let isEnabled: Bool
    private let state: Locked<State>
    /// Whether a stopped transfer's bytes may be kept at all (the pipeline's resumable budget).
    private let keepsStoppedBytes: Bool

    /// - Parameter isEnabled: `false`: the queue runs its maximum, every transfer counts (the
    ///   behaviour before issue 51).
    init(queue: WorkQueue, maximum: Int, clock: any UptimeClock, isEnabled: Bool = true, keepsStoppedBytes: Bool = true) {
        self.state = Locked(State(gauge: LinkGauge(maximum: maximum)))
        self.keepsStoppedBytes = keepsStoppedBytes
        self.queue = queue
        self.maximum = maximum
        self.clock = clock
        self.isEnabled = isEnabled
    }

    /// The counting transfers the queue starts now (the maximum until the link is measured).
    var limit: Int { queue.currentLimit }

    /// Downloads holding a slot now, counting or not (tests).
    var runningCount: Int { queue.activeCount }

    /// Downloads waiting for a slot (tests).
    var waitingCount: Int { queue.pendingCount }

    /// Whether the link is measured slow (``LinkGauge/isSlow(maximum:)``); `nil` while it is
    /// not measured, or when the scheduler is off.
    var isSlow: Bool? {
        guard isEnabled else { return nil }
        return state.withLock { $0.gauge.isSlow(maximum: maximum) }
    }

    /// What the gauge knows now (tests).
    var gauge: LinkGauge { state.withLock { $0.gauge } }

    /// What a transfer is to the link rule.
    struct Role: Sendable {
        /// Whether it counts against the limit before any body arrives: not a revalidation
        /// (its `304` is a head), unless an earlier attempt got a body.
        var countsBeforeBody = true
        /// Whether its bytes are kept when it stops, for a `Range` request (with a response that
        /// allows it): it may step aside after its first bytes.
        var keepsBytes = true
    }

    /// A transfer holding queue ticket `ticket` was sent (`conditional`: with validators); its ID
    /// for the other events.
    func sent(ticket: Int, place: Int? = nil, conditional: Bool, priority: DataLoadPriority) -> Int {
        sent(ticket: ticket, place: place, role: Role(countsBeforeBody: !conditional), priority: priority)
    }

    /// A transfer holding queue ticket `ticket` (at `place` in line) was sent in `role`; its ID
    /// for the other events.
    func sent(ticket: Int, place: Int? = nil, role: Role, priority: DataLoadPriority) -> Int {
        let now = clock.now
        let (id, startsTicking) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.gauge.sent(id, conditional: !role.countsBeforeBody, at: now)
            state.entries[id] = Entry(ticket: ticket, place: place ?? ticket, priority: priority, keepsBytes: role.keepsBytes)
            defer { state.isTicking = true }
            return (id, !state.isTicking)
        }
        if isEnabled, startsTicking { startTicking() }
        decide()
        return id
    }

    /// Transfer `id`'s final response head arrived.
    func head(_ id: Int, response: URLResponse) {
        let now = clock.now
        let http = response as? HTTPURLResponse
        var length: Int?
        if http?.value(forHTTPHeaderField: "Content-Encoding") == nil {
            length = response.expectedContentLength > 0
                ? Int(exactly: response.expectedContentLength)
                : http?.value(forHTTPHeaderField: "Content-Length").flatMap { Int($0) }
        }
        // Its bytes are kept for a `Range` request when the server takes ranges and names this
        // version (a strong ETag or a Last-Modified), as ``ResumableTransfer`` requires.
        let acceptsRanges = http?.statusCode == 206 || http?.value(forHTTPHeaderField: "Accept-Ranges")?.lowercased() == "bytes"
        let etag = http?.value(forHTTPHeaderField: "ETag")
        let validated = (etag.map { !$0.hasPrefix("W/") } ?? false) || http?.value(forHTTPHeaderField: "Last-Modified") != nil
        let resumable = keepsStoppedBytes && acceptsRanges && validated
        state.withLock { state in
            let keeps = resumable && state.entries[id]?.keepsBytes == true
            state.gauge.head(id, status: http?.statusCode ?? 200, expectedLength: length, resumable: keeps, at: now)
        }
        decide()
    }

    /// `count` body bytes of transfer `id` arrived.
    func received(_ count: Int, of id: Int) {
        let now = clock.now
        state.withLock { $0.gauge.received(count, of: id, at: now) }
        decide()
    }

    /// Transfer `id` ended (`complete`: its whole body arrived).
    func ended(_ id: Int, complete: Bool) {
        let now = clock.now
        state.withLock { state in
            state.gauge.ended(id, complete: complete, at: now)
            if let ticket = state.entries.removeValue(forKey: id)?.ticket { state.appliedCounts[ticket] = nil }
        }
        decide()
    }

    /// Takes the decisions at the clock's now and hands what changed to the queue; preemptions
    /// fire after every lock is released (a transfer's cancellation may report its end).
    func decide() {
        guard isEnabled else { return }
        let now = clock.now
        let preemptions: [Preemption] = state.withLock { state in
            let limit = state.gauge.concurrency(maximum: maximum) ?? maximum
            var counts: [Int: Bool] = [:]
            var counting: [(id: Int, priority: ImageRequest.Priority)] = []
            for (id, entry) in state.entries {
                let value = state.gauge.counts(id, at: now)
                counts[entry.ticket] = value
                if value { counting.append((id, entry.priority.value)) }
            }
            var preemptions: [Preemption] = []
            if limit != state.appliedLimit || counts != state.appliedCounts {
                preemptions += queue.setLimit(limit, counts: counts)
                state.appliedLimit = limit
                state.appliedCounts = counts
            }
            // They wait again where they stood in line (``WorkQueue/enqueue(priority:counts:place:)``).
            let places = state.entries.mapValues(\.place)
            let pauses = state.gauge.pauses(running: counting, limit: limit, places: places).compactMap { state.entries[$0]?.ticket }
            if !pauses.isEmpty { preemptions += queue.yield(pauses) }
            return preemptions
        }
        for preemption in preemptions { preemption.preempt() }
    }

    /// Takes the decisions again every ``tick`` while transfers run.
    private func startTicking() {
        let clock = clock
        Task { [weak self] in
            while true {
                try? await clock.sleep(until: clock.now + Self.tick)
                guard let self else { return }
                let goesOn = self.state.withLock { state in
                    if state.entries.isEmpty { state.isTicking = false }
                    return state.isTicking
                }
                guard goesOn else { return }
                self.decide()
            }
        }
    }
}
