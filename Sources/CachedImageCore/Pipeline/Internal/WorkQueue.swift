import Foundation

/// Runs at most `maxConcurrentCount` operations at once; waiting operations start highest
/// priority first, first-come first-served within a priority. A waiting operation's priority
/// can change (a prefetch that a visible view now needs jumps the queue).
///
/// Visible work comes first for the slots, not only for the queue: when an operation at
/// ``preemptingPriority`` or above waits with every slot taken, the running operation with the
/// lowest priority below both (the latest started among equals: the least invested) is
/// preempted: its ``Preemption`` fires, it gives its slot back, and its owner may enqueue again
/// (the downloader does; once partial bodies are kept, it resumes where it stopped).
final class WorkQueue: @unchecked Sendable {
    typealias Priority = ImageRequest.Priority

    /// Operations below this priority are background work (off screen, prefetch) that a waiting
    /// operation at or above it may preempt.
    static let preemptingPriority = Priority.normal

    private let lock = Lock()
    private let maxConcurrentCount: Int
    private var runningCount = 0
    /// Running tickets that may be preempted, by ID: their priority and start order.
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
    }

    /// Operations currently running.
    var activeCount: Int { lock.withLock { runningCount } }

    /// Operations waiting for a slot (enqueued tickets that have not started waiting do not count).
    var pendingCount: Int { lock.withLock { waiting.values.filter { $0.continuation != nil }.count } }

    /// Takes a place in the queue. Await ``Ticket/run(_:)`` to wait for a slot and run.
    func enqueue(priority: Priority) -> Ticket {
        lock.withLock {
            let id = nextID
            nextID += 1
            waiting[id] = Waiter(priority: priority)
            return Ticket(queue: self, id: id)
        }
    }

    // MARK: Ticket operations

    fileprivate func waitForTurn(_ id: Int, preemption: Preemption?) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, victim): (Result<Void, any Error>?, Preemption?) = lock.withLock {
                    guard waiting[id] != nil else {
                        // Cancelled before it could wait.
                        return (.failure(CancellationError()), nil)
                    }
                    waiting[id]?.continuation = continuation
                    waiting[id]?.preemption = preemption
                    if let priority = waiting[id]?.priority {
                        buckets[priority.rawValue].append(id)
                    }
                    let outcome = startNextIfPossible(resuming: id)
                    return (outcome, outcome == nil ? victimForWaiters() : nil)
                }
                if let outcome { continuation.resume(with: outcome) }
                victim?.preempt()
            }
        } onCancel: {
            let continuation = lock.withLock { waiting.removeValue(forKey: id)?.continuation }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Starts waiters while slots are free. Must be called under the lock. Returns the outcome
    /// for `ownID` when it is started, so its caller resumes it outside the lock.
    private func startNextIfPossible(resuming ownID: Int? = nil) -> Result<Void, any Error>? {
        var ownOutcome: Result<Void, any Error>?
        while runningCount < maxConcurrentCount, let id = popHighest() {
            guard let waiter = waiting.removeValue(forKey: id), let continuation = waiter.continuation else { continue }
            runningCount += 1
            startCount += 1
            if let preemption = waiter.preemption {
                running[id] = Runner(priority: waiter.priority, order: startCount, preemption: preemption)
            }
            if id == ownID {
                ownOutcome = .success(())
            } else {
                continuation.resume()
            }
        }
        return ownOutcome
    }

    fileprivate func finish(_ id: Int) {
        lock.withLock {
            runningCount -= 1
            running[id] = nil
            _ = startNextIfPossible()
        }
    }

    fileprivate func setPriority(_ priority: Priority, of id: Int) {
        let victim: Preemption? = lock.withLock {
            if running[id] != nil {
                running[id]?.priority = priority
                return victimForWaiters()
            }
            guard let waiter = waiting[id], waiter.priority != priority else { return nil }
            waiting[id]?.priority = priority
            guard waiter.continuation != nil else { return nil }
            buckets[priority.rawValue].append(id)
            return victimForWaiters()
        }
        victim?.preempt()
    }

    /// The running operation to preempt for the highest waiting one, if any (under the lock):
    /// all slots taken, a waiter at ``preemptingPriority`` or above, a preemptible runner below
    /// it and below that priority, not already preempted. The runner leaves the table at once,
    /// so one waiter preempts one runner.
    private func victimForWaiters() -> Preemption? {
        guard runningCount >= maxConcurrentCount, let waiter = highestWaitingPriority(),
              waiter >= Self.preemptingPriority else { return nil }
        let candidates = running.filter { $0.value.priority < Self.preemptingPriority && $0.value.priority < waiter }
        guard let victim = candidates.min(by: { a, b in
            a.value.priority != b.value.priority ? a.value.priority < b.value.priority : a.value.order > b.value.order
        }) else { return nil }
        // Waiters beyond the first already have a victim each when several were preempted:
        // count the preempted runners as leaving.
        let preempted = running.values.filter(\.isPreempted).count
        guard preempted < waitingCount(atLeast: Self.preemptingPriority) else { return nil }
        running[victim.key]?.isPreempted = true
        return victim.value.preemption
    }

    private func highestWaitingPriority() -> Priority? {
        waiting.values.lazy.filter { $0.continuation != nil }.map(\.priority).max()
    }

    private func waitingCount(atLeast priority: Priority) -> Int {
        waiting.values.filter { $0.continuation != nil && $0.priority >= priority }.count
    }

    // MARK: Buckets (under the lock)

    private func popHighest() -> Int? {
        for rawValue in buckets.indices.reversed() {
            while bucketHeads[rawValue] < buckets[rawValue].count {
                let id = buckets[rawValue][bucketHeads[rawValue]]
                bucketHeads[rawValue] += 1
                compact(rawValue)
                // Skip IDs that left the queue or now live in another bucket.
                if let waiter = waiting[id], waiter.continuation != nil, waiter.priority.rawValue == rawValue {
                    return id
                }
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
        var continuation: CheckedContinuation<Void, any Error>?
        var preemption: Preemption?
    }

    private struct Runner {
        var priority: Priority
        var order: Int
        var preemption: Preemption
        var isPreempted = false
    }
}

extension WorkQueue {
    /// A place in the queue.
    struct Ticket: Sendable {
        fileprivate let queue: WorkQueue
        fileprivate let id: Int

        /// Waits for a slot, runs `body`, and frees the slot. Cancelling the calling task while it
        /// waits leaves the queue and throws `CancellationError`. With a `preemption`, the
        /// operation may be asked to give its slot to a more important one while it runs below
        /// ``WorkQueue/preemptingPriority`` (``Preemption/onPreempt(_:)``).
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
