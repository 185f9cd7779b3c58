import Foundation

/// Runs at most `maxConcurrentCount` operations at once; waiting operations start highest
/// priority first, first-come first-served within a priority. A waiting operation's priority
/// can change (a prefetch that a visible view now needs jumps the queue).
///
/// Within the maximum, a lower limit may apply to the operations that *count* (the downloader's
/// link rule, ``setLimit(_:counts:)``): an operation counts unless its owner says otherwise
/// (a revalidation before any body, a stalled transfer, one about to end). A waiting operation
/// that does not count starts whenever the maximum allows; one that counts also needs fewer
/// counting operations running than the limit.
///
/// Visible work comes first for the slots, not only for the queue: when an operation at
/// ``preemptingPriority`` or above waits and cannot start, the running operation with the
/// lowest priority below both (the latest started among equals: the least invested) is
/// preempted: its ``Preemption`` fires, it gives its slot back, and its owner may enqueue again
/// (the downloader does; once partial bodies are kept, it resumes where it stopped). The slot it
/// frees is handed to the highest waiting operation at ``preemptingPriority`` or above whatever
/// the limit is by then (only the maximum applies), so a limit that falls in between never
/// strands the request that preempted.
///
/// An owner may also ask running operations to step aside (``yield(_:)``): they are preempted
/// the same way, without handing their slot over (the limit decides who starts next).
final class WorkQueue: @unchecked Sendable {
    typealias Priority = ImageRequest.Priority

    /// Operations below this priority are background work (off screen, prefetch) that a waiting
    /// operation at or above it may preempt.
    static let preemptingPriority = Priority.normal

    private let lock = Lock()
    /// The most operations the queue runs at once, counting or not.
    private let maxConcurrentCount: Int
    /// The most counting operations it starts: at most ``maxConcurrentCount``.
    private var limit: Int
    private var runningCount = 0
    /// Running tickets by ID: their priority, start order, whether they count and may be preempted.
    private var running: [Int: Runner] = [:]
    private var startCount = 0
    private var nextID = 0
    /// Waiting tickets by ID, with their current priority.
    private var waiting: [Int: Waiter] = [:]
    /// One FIFO of ticket IDs per priority. Entries whose ticket left or moved are skipped lazily.
    private var buckets: [[Int]] = Array(repeating: [], count: Priority.allCases.count)
    private var bucketHeads: [Int] = Array(repeating: 0, count: Priority.allCases.count)

    init(maxConcurrentCount: Int) {
        precondition(maxConcurrentCount > 0, "maxConcurrentCount must be positive")
        self.maxConcurrentCount = maxConcurrentCount
        self.limit = maxConcurrentCount
    }

    /// Operations currently running.
    var activeCount: Int { lock.withLock { runningCount } }

    /// Running operations that count against the limit.
    var countingCount: Int { lock.withLock { countingRunners } }

    /// The most counting operations the queue starts now.
    var currentLimit: Int { lock.withLock { limit } }

    /// Operations waiting for a slot (enqueued tickets that have not started waiting do not count).
    var pendingCount: Int { lock.withLock { waiting.values.filter { $0.continuation != nil }.count } }

    /// Takes a place in the queue. Await ``Ticket/run(_:)`` to wait for a slot and run.
    /// `counts`: whether the operation counts against the limit from its start. `place`: an
    /// earlier ticket's ``Ticket/place``, for an operation that waits again (it stepped aside or
    /// was preempted) and keeps its place in line within its priority; by default the end.
    func enqueue(priority: Priority, counts: Bool = true, place: Int? = nil) -> Ticket {
        lock.withLock {
            let id = nextID
            nextID += 1
            let place = place ?? id
            waiting[id] = Waiter(priority: priority, counts: counts, place: place)
            return Ticket(queue: self, id: id, place: place)
        }
    }

    /// Puts waiting ticket `id` in its priority's line by its place (under the lock): at the end
    /// unless it keeps an earlier place.
    private func line(_ id: Int, priority: Priority) {
        let place = waiting[id]?.place ?? id
        let raw = priority.rawValue
        var index = buckets[raw].count
        while index > bucketHeads[raw], (waiting[buckets[raw][index - 1]]?.place ?? buckets[raw][index - 1]) > place {
            index -= 1
        }
        buckets[raw].insert(id, at: index)
    }

    /// Sets the limit (clamped to `1...maximum`) and whether the running operations in `counts`
    /// count against it, and starts what may start. Returns the running operations to preempt
    /// for a visible waiter that still cannot start: the caller preempts them once it holds no
    /// lock (a transfer's cancellation may call back into it).
    func setLimit(_ newLimit: Int, counts: [Int: Bool] = [:]) -> [Preemption] {
        lock.withLock {
            limit = min(max(1, newLimit), maxConcurrentCount)
            for (id, value) in counts where running[id] != nil {
                running[id]?.counts = value
            }
            _ = startNextIfPossible()
            return victimsForWaiters()
        }
    }

    /// Marks the running operations `ids` as stepping aside and returns their preemptions (each
    /// once) for the caller to fire outside its locks. Their slots are not handed to a waiter of
    /// their own: the limit decides who starts next.
    func yield(_ ids: [Int]) -> [Preemption] {
        lock.withLock {
            ids.compactMap { id in
                guard let runner = running[id], runner.stop == nil, let preemption = runner.preemption else { return nil }
                running[id]?.stop = .yielded
                return preemption
            }
        }
    }

    // MARK: Ticket operations

    fileprivate func waitForTurn(_ id: Int, preemption: Preemption?) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, victims): (Result<Void, any Error>?, [Preemption]) = lock.withLock {
                    guard waiting[id] != nil else {
                        // Cancelled before it could wait.
                        return (.failure(CancellationError()), [])
                    }
                    waiting[id]?.continuation = continuation
                    waiting[id]?.preemption = preemption
                    if let priority = waiting[id]?.priority {
                        line(id, priority: priority)
                    }
                    let outcome = startNextIfPossible(resuming: id)
                    return (outcome, victimsForWaiters())
                }
                if let outcome { continuation.resume(with: outcome) }
                for victim in victims { victim.preempt() }
            }
        } onCancel: {
            let continuation = lock.withLock { waiting.removeValue(forKey: id)?.continuation }
            continuation?.resume(throwing: CancellationError())
        }
    }

    private var countingRunners: Int { running.values.reduce(0) { $0 + ($1.counts ? 1 : 0) } }

    /// Starts waiters while slots are free. Must be called under the lock. Returns the outcome
    /// for `ownID` when it is started, so its caller resumes it outside the lock.
    private func startNextIfPossible(resuming ownID: Int? = nil) -> Result<Void, any Error>? {
        var ownOutcome: Result<Void, any Error>?
        while let id = nextStartable() {
            if start(id, resuming: ownID) { ownOutcome = .success(()) }
        }
        return ownOutcome
    }

    /// Starts waiter `id` (under the lock); `true` when it is `ownID`, whose caller resumes it.
    private func start(_ id: Int, resuming ownID: Int?) -> Bool {
        guard let waiter = waiting.removeValue(forKey: id), let continuation = waiter.continuation else { return false }
        runningCount += 1
        startCount += 1
        running[id] = Runner(priority: waiter.priority, order: startCount, preemption: waiter.preemption, counts: waiter.counts)
        if id == ownID { return true }
        continuation.resume()
        return false
    }

    fileprivate func finish(_ id: Int) {
        let victims: [Preemption] = lock.withLock {
            runningCount -= 1
            let runner = running.removeValue(forKey: id)
            if runner?.stop == .handedOver, runningCount < maxConcurrentCount, let visible = highestWaiter(atLeast: Self.preemptingPriority) {
                // The slot goes to the request that preempted, whatever the limit is now.
                _ = start(visible, resuming: nil)
            }
            _ = startNextIfPossible()
            return victimsForWaiters()
        }
        for victim in victims { victim.preempt() }
    }

    fileprivate func setPriority(_ priority: Priority, of id: Int) {
        let victims: [Preemption] = lock.withLock {
            if running[id] != nil {
                running[id]?.priority = priority
                return victimsForWaiters()
            }
            guard let waiter = waiting[id], waiter.priority != priority else { return [] }
            waiting[id]?.priority = priority
            guard waiter.continuation != nil else { return [] }
            line(id, priority: priority)
            return victimsForWaiters()
        }
        for victim in victims { victim.preempt() }
    }

    /// Whether `waiter` may start now (under the lock): a slot within the maximum and, if it
    /// counts, within the limit.
    private func mayStart(_ waiter: Waiter) -> Bool {
        runningCount < maxConcurrentCount && (!waiter.counts || countingRunners < limit)
    }

    /// The running operation to preempt for the highest waiting one, if any (under the lock): a
    /// waiter at ``preemptingPriority`` or above that cannot start, a preemptible runner below it
    /// and below that priority, not already stopping; when the maximum has room (the waiter is
    /// held back by the limit), only a runner that counts: stopping one that does not frees
    /// nothing the waiter lacks. The runner is marked at once, so one waiter preempts one runner.
    private func victimsForWaiters() -> [Preemption] {
        guard let waiterID = highestWaiter(atLeast: Self.preemptingPriority), let waiter = waiting[waiterID],
              !mayStart(waiter) else { return [] }
        let heldByLimit = runningCount < maxConcurrentCount
        let candidates = running.filter {
            $0.value.preemption != nil && $0.value.stop == nil
                && $0.value.priority < Self.preemptingPriority && $0.value.priority < waiter.priority
                && (!heldByLimit || $0.value.counts)
        }
        guard let victim = candidates.min(by: { a, b in
            a.value.priority != b.value.priority ? a.value.priority < b.value.priority : a.value.order > b.value.order
        }) else { return [] }
        // Waiters beyond the first already have a victim each when several were preempted:
        // count the runners handing their slot over as leaving.
        let handingOver = running.values.filter { $0.stop == .handedOver }.count
        guard handingOver < waitingCount(atLeast: Self.preemptingPriority) else { return [] }
        running[victim.key]?.stop = .handedOver
        return victim.value.preemption.map { [$0] } ?? []
    }

    /// The waiter that starts first among those at `priority` or above (under the lock).
    private func highestWaiter(atLeast priority: Priority) -> Int? {
        for rawValue in buckets.indices.reversed() where rawValue >= priority.rawValue {
            for index in bucketHeads[rawValue]..<buckets[rawValue].count {
                let id = buckets[rawValue][index]
                if let waiter = waiting[id], waiter.continuation != nil, waiter.priority.rawValue == rawValue { return id }
            }
        }
        return nil
    }

    private func waitingCount(atLeast priority: Priority) -> Int {
        waiting.values.filter { $0.continuation != nil && $0.priority >= priority }.count
    }

    // MARK: Buckets (under the lock)

    /// The first waiter, highest priority first and in order within one, that may start now;
    /// a counting waiter held back by the limit lets a non-counting one behind it start.
    private func nextStartable() -> Int? {
        guard runningCount < maxConcurrentCount else { return nil }
        for rawValue in buckets.indices.reversed() {
            var index = bucketHeads[rawValue]
            while index < buckets[rawValue].count {
                let id = buckets[rawValue][index]
                // Skip IDs that left the queue or now live in another bucket.
                guard let waiter = waiting[id], waiter.continuation != nil, waiter.priority.rawValue == rawValue else {
                    if index == bucketHeads[rawValue] {
                        bucketHeads[rawValue] += 1
                        compact(rawValue)
                        index = bucketHeads[rawValue]
                    } else {
                        index += 1
                    }
                    continue
                }
                if mayStart(waiter) {
                    if index == bucketHeads[rawValue] {
                        bucketHeads[rawValue] += 1
                        compact(rawValue)
                    }
                    return id
                }
                index += 1
            }
        }
        return nil
    }

    private func compact(_ rawValue: Int) {
        if bucketHeads[rawValue] == buckets[rawValue].count {
            buckets[rawValue].removeAll(keepingCapacity: true)
            bucketHeads[rawValue] = 0
        } else if bucketHeads[rawValue] > 64, bucketHeads[rawValue] * 2 > buckets[rawValue].count {
            buckets[rawValue].removeFirst(bucketHeads[rawValue])
            bucketHeads[rawValue] = 0
        }
    }

    private struct Waiter {
        var priority: Priority
        var counts: Bool
        /// Its place in line within its priority (``enqueue(priority:counts:place:)``).
        var place: Int
        var continuation: CheckedContinuation<Void, any Error>?
        var preemption: Preemption?
    }

    private enum Stop {
        /// Preempted for a visible waiter: its slot goes to that waiter.
        case handedOver
        /// Asked to step aside (``yield(_:)``).
        case yielded
    }

    private struct Runner {
        var priority: Priority
        var order: Int
        var preemption: Preemption?
        var counts: Bool
        var stop: Stop?
    }
}

extension WorkQueue {
    /// A place in the queue.
    struct Ticket: Sendable {
        fileprivate let queue: WorkQueue
        /// The ticket's number in its queue (``WorkQueue/setLimit(_:counts:)``, ``WorkQueue/yield(_:)``).
        let id: Int
        /// Its place in line within its priority: its own number, or the earlier ticket's it keeps.
        let place: Int

        /// Waits for a slot, runs `body`, and frees the slot. Cancelling the calling task while it
        /// waits leaves the queue and throws `CancellationError`. With a `preemption`, the
        /// operation may be asked to give its slot to a more important one while it runs below
        /// ``WorkQueue/preemptingPriority`` (``Preemption/onPreempt(_:)``), or to step aside.
        func run<T: Sendable>(preemption: Preemption? = nil, _ body: @Sendable () async throws -> T) async throws -> T {
            try await queue.waitForTurn(id, preemption: preemption)
            defer { queue.finish(id) }
            return try await body()
        }

        /// Changes the priority while waiting (the queue's order) or running (whether it may be
        /// preempted).
        func setPriority(_ priority: ImageRequest.Priority) {
            queue.setPriority(priority, of: id)
        }
    }
}
