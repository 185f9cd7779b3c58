import Foundation

/// Runs at most `maxConcurrentCount` operations at once; waiting operations start highest
/// priority first, first-come first-served within a priority. A waiting operation's priority
/// can change (a prefetch that a visible view now needs jumps the queue).
final class WorkQueue: @unchecked Sendable {
    typealias Priority = ImageRequest.Priority

    private let lock = Lock()
    private let maxConcurrentCount: Int
    private var runningCount = 0
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

    fileprivate func waitForTurn(_ id: Int) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = lock.withLock {
                    guard waiting[id] != nil else {
                        // Cancelled before it could wait.
                        return .failure(CancellationError())
                    }
                    waiting[id]?.continuation = continuation
                    if let priority = waiting[id]?.priority {
                        buckets[priority.rawValue].append(id)
                    }
                    return startNextIfPossible(resuming: id)
                }
                if let outcome { continuation.resume(with: outcome) }
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
            guard let continuation = waiting.removeValue(forKey: id)?.continuation else { continue }
            runningCount += 1
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
            _ = startNextIfPossible()
        }
    }

    fileprivate func setPriority(_ priority: Priority, of id: Int) {
        lock.withLock {
            guard let waiter = waiting[id], waiter.priority != priority else { return }
            waiting[id]?.priority = priority
            if waiter.continuation != nil {
                buckets[priority.rawValue].append(id)
            }
        }
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
    }
}

extension WorkQueue {
    /// A place in the queue.
    struct Ticket: Sendable {
        fileprivate let queue: WorkQueue
        fileprivate let id: Int

        /// Waits for a slot, runs `body`, and frees the slot. Cancelling the calling task while it
        /// waits leaves the queue and throws `CancellationError`.
        func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
            try await queue.waitForTurn(id)
            defer { queue.finish(id) }
            return try await body()
        }

        /// Changes the priority while waiting; no effect once running.
        func setPriority(_ priority: ImageRequest.Priority) {
            queue.setPriority(priority, of: id)
        }
    }
}
