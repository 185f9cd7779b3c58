import Testing
@testable import CachedImageCore

@Suite("WorkQueue")
struct WorkQueueTests {
    /// Occupies the queue's only slot until the returned gate opens.
    private func blockQueue(_ queue: WorkQueue) async -> (Gate, Task<Void, any Error>) {
        let gate = Gate()
        let running = Gate()
        let blocker = Task {
            try await queue.enqueue(priority: .veryHigh).run {
                running.open()
                await gate.wait()
            }
        }
        await running.wait()
        return (gate, blocker)
    }

    @Test("never runs more than its limit at once")
    func boundsConcurrency() async throws {
        let queue = WorkQueue(maxConcurrentCount: 3)
        let running = Locked((current: 0, peak: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await queue.enqueue(priority: .normal).run {
                        running.withLock { $0.current += 1; $0.peak = max($0.peak, $0.current) }
                        await Task.yield()
                        running.withLock { $0.current -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(running.withLock { $0.peak } == 3)
        #expect(queue.activeCount == 0)
    }

    @Test("waiting work starts highest priority first, FIFO within a priority")
    func priorityOrder() async throws {
        let queue = WorkQueue(maxConcurrentCount: 1)
        let (gate, blocker) = await blockQueue(queue)
        let order = Recorder<String>()
        var tasks: [Task<Void, any Error>] = []
        for (name, priority) in [("low1", .low), ("high", .high), ("low2", .low), ("normal", .normal)] as [(String, ImageRequest.Priority)] {
            let ticket = queue.enqueue(priority: priority)
            tasks.append(Task { try await ticket.run { order.append(name) } })
            let expected = tasks.count
            #expect(await eventually { queue.pendingCount == expected })
        }
        gate.open()
        try await blocker.value
        for task in tasks { try await task.value }
        #expect(order.values == ["high", "normal", "low1", "low2"])
    }

    @Test("raising a waiting ticket's priority lets it overtake")
    func reprioritise() async throws {
        let queue = WorkQueue(maxConcurrentCount: 1)
        let (gate, blocker) = await blockQueue(queue)
        let order = Recorder<String>()
        let visible = queue.enqueue(priority: .normal)
        let prefetch = queue.enqueue(priority: .veryLow)
        let first = Task { try await visible.run { order.append("visible") } }
        let second = Task { try await prefetch.run { order.append("prefetch") } }
        #expect(await eventually { queue.pendingCount == 2 })
        prefetch.setPriority(.veryHigh)
        gate.open()
        try await blocker.value
        try await first.value
        try await second.value
        #expect(order.values == ["prefetch", "visible"])
    }

    @Test("a cancelled waiter leaves the queue without running or holding a slot")
    func cancelWhileWaiting() async throws {
        let queue = WorkQueue(maxConcurrentCount: 1)
        let (gate, blocker) = await blockQueue(queue)
        let ran = Locked(false)
        let ticket = queue.enqueue(priority: .high)
        let waiting = Task { try await ticket.run { ran.withLock { $0 = true } } }
        #expect(await eventually { queue.pendingCount == 1 })
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(queue.pendingCount == 0)
        gate.open()
        try await blocker.value
        #expect(try await queue.enqueue(priority: .low).run { 5 } == 5)
        #expect(ran.withLock { $0 } == false)
    }
}
