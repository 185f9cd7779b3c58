import Testing
@testable import CachedImageCore

/// Visible work comes first for the slots: a waiting operation at `.normal` or above takes the
/// slot of a running preemptible one below `.normal` (an off-screen download, a prefetch).
@Suite("WorkQueue: preemption")
struct WorkQueuePreemptionTests {
    /// Runs a preemptible operation at `priority` in `queue` until it is preempted or `gate`
    /// opens; returns whether it was preempted.
    private func startRunner(_ queue: WorkQueue, priority: ImageRequest.Priority, gate: Gate) async -> (Preemption, Task<Bool, any Error>) {
        let preemption = Preemption()
        let started = Gate()
        let ticket = queue.enqueue(priority: priority)
        let stop = Gate()
        Task { await gate.wait(); stop.open() }
        let task = Task {
            try await ticket.run(preemption: preemption) {
                started.open()
                preemption.onPreempt { stop.open() }
                await stop.wait()
                return preemption.isPreempted
            }
        }
        await started.wait()
        return (preemption, task)
    }

    @Test("a visible request waiting for a slot takes it from a running off-screen download")
    func visibleTakesOffscreenSlot() async throws {
        let queue = WorkQueue(maxConcurrentCount: 1)
        let gate = Gate()
        let (_, runner) = await startRunner(queue, priority: .low, gate: gate)
        let visible = Task { try await queue.enqueue(priority: .normal).run { "visible ran" } }
        #expect(try await visible.value == "visible ran")
        #expect(try await runner.value == true, "the off-screen download was preempted")
        #expect(queue.activeCount == 0)
    }

    @Test("nothing is preempted by work of the same or a lower priority, nor below .normal, nor while a slot is free")
    func preemptsOnlyForVisibleWork() async throws {
        for (running, waiting) in [(ImageRequest.Priority.low, ImageRequest.Priority.low), (.veryLow, .low), (.normal, .high), (.low, .veryLow)] {
            let queue = WorkQueue(maxConcurrentCount: 1)
            let gate = Gate()
            let (preemption, runner) = await startRunner(queue, priority: running, gate: gate)
            let ticket = queue.enqueue(priority: waiting)
            let waiter = Task { try await ticket.run { } }
            #expect(await eventually { queue.pendingCount == 1 })
            #expect(!preemption.isPreempted, "\(running) running, \(waiting) waiting")
            gate.open()
            #expect(try await runner.value == false)
            try await waiter.value
        }
        // Two slots, one free: the visible request takes the free one.
        let queue = WorkQueue(maxConcurrentCount: 2)
        let gate = Gate()
        let (preemption, runner) = await startRunner(queue, priority: .low, gate: gate)
        try await queue.enqueue(priority: .high).run { }
        #expect(!preemption.isPreempted)
        gate.open()
        _ = try await runner.value
    }

    @Test("a download whose view comes back (priority raised while running) is no longer preemptible")
    func raisedPriorityProtects() async throws {
        let queue = WorkQueue(maxConcurrentCount: 1)
        let gate = Gate()
        let preemption = Preemption()
        let started = Gate()
        let ticket = queue.enqueue(priority: .low)
        let runner = Task { try await ticket.run(preemption: preemption) { started.open(); await gate.wait() } }
        await started.wait()
        ticket.setPriority(.normal)
        let waiting = queue.enqueue(priority: .high)
        let visible = Task { try await waiting.run { } }
        #expect(await eventually { queue.pendingCount == 1 })
        #expect(!preemption.isPreempted, "a visible download keeps its slot")
        gate.open()
        try await runner.value
        try await visible.value
    }

    @Test("one waiter preempts one runner: the lowest priority, the latest started among equals")
    func oneVictimPerWaiter() async throws {
        let queue = WorkQueue(maxConcurrentCount: 3)
        let gate = Gate()
        let (veryLow, veryLowTask) = await startRunner(queue, priority: .veryLow, gate: gate)
        let (first, firstTask) = await startRunner(queue, priority: .low, gate: gate)
        let (second, secondTask) = await startRunner(queue, priority: .low, gate: gate)
        // A visible download that holds the slot it took.
        let holding = Gate()
        let held = Gate()
        let visible = Task { try await queue.enqueue(priority: .normal).run { held.open(); await holding.wait() } }
        await held.wait()
        #expect(veryLow.isPreempted && !first.isPreempted && !second.isPreempted)
        try await queue.enqueue(priority: .normal).run { }
        #expect(second.isPreempted && !first.isPreempted, "the latest started of equals")
        gate.open()
        holding.open()
        try await visible.value
        for task in [veryLowTask, firstTask, secondTask] { _ = try await task.value }
    }
}
