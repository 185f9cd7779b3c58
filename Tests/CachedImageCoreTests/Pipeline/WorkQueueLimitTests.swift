import Testing
@testable import CachedImageCore

/// The slot a preempted download gives up goes to the visible request that preempted it,
/// whatever the limit does in between (the rejected attempt recomputed the limit from the
/// running transfers and stranded the visible request).
@Suite("WorkQueue: preemption under a link limit", .timeLimit(.minutes(1)))
struct WorkQueueLimitTests {
    @Test("a visible request gets the preempted slot even when the limit falls before the slot is freed")
    func handOverSurvivesAFallingLimit() async throws {
        let queue = WorkQueue(maxConcurrentCount: 12)
        _ = queue.setLimit(2)
        var collected: [(Preemption, Gate, Task<Bool, any Error>)] = []
        for _ in 0..<2 {
            let preemption = Preemption()
            let gate = Gate()
            let started = Gate()
            let ticket = queue.enqueue(priority: .low)
            let task = Task {
                try await ticket.run(preemption: preemption) {
                    started.open()
                    await gate.wait()
                    return preemption.isPreempted
                }
            }
            await started.wait()
            collected.append((preemption, gate, task))
        }
        let runners = collected
        // The victim (the latest started) holds its slot until the test frees it.
        let visibleRan = Locked(false)
        let visible = Task { try await queue.enqueue(priority: .normal).run { visibleRan.withLock { $0 = true } } }
        #expect(await eventually { runners[1].0.isPreempted }, "the latest off-screen download is asked for its slot")
        #expect(!runners[0].0.isPreempted)
        for preemption in queue.setLimit(1) { preemption.preempt() } // the link looks slower meanwhile
        runners[1].1.open()
        #expect(try await runners[1].2.value == true)
        #expect(await eventually { visibleRan.withLock { $0 } }, "the slot went to the visible request")
        #expect(!runners[0].0.isPreempted, "no second download gave its slot for the same request")
        runners[0].1.open()
        _ = try await runners[0].2.value
        try await visible.value
    }

    @Test("an operation that waits again keeps its place in line: it starts before those asked after it")
    func waitingAgainKeepsThePlace() async throws {
        let queue = WorkQueue(maxConcurrentCount: 1)
        let holder = Gate()
        let held = Gate()
        let first = queue.enqueue(priority: .normal)
        let holding = Task { try await first.run { held.open(); await holder.wait() } }
        await held.wait()
        let order = Locked<[String]>([])
        // "a" stood in line before "b" and "c", stepped aside, and waits again after them.
        let a = queue.enqueue(priority: .normal)
        let b = queue.enqueue(priority: .normal)
        let c = queue.enqueue(priority: .normal)
        let tasks = [("b", b), ("c", c)].map { name, ticket in Task { try await ticket.run { order.withLock { $0.append(name) } } } }
        #expect(await eventually { queue.pendingCount == 2 })
        let again = queue.enqueue(priority: .normal, place: a.place)
        let last = Task { try await again.run { order.withLock { $0.append("a") } } }
        #expect(await eventually { queue.pendingCount == 3 })
        holder.open()
        try await holding.value
        for task in tasks + [last] { try await task.value }
        #expect(order.withLock { $0 } == ["a", "b", "c"])
    }

    @Test("held back by the limit, a visible request does not preempt a background operation that does not count (it would free nothing and start again)")
    func nonCountingRunnersAreNotVictims() async throws {
        let queue = WorkQueue(maxConcurrentCount: 12)
        _ = queue.setLimit(1)
        let gates = (Gate(), Gate())
        let started = (Gate(), Gate())
        let holder = queue.enqueue(priority: .normal)
        let holding = Task { try await holder.run { started.0.open(); await gates.0.wait() } }
        await started.0.wait()
        let revalidation = Preemption()
        let background = queue.enqueue(priority: .low, counts: false)
        let revalidating = Task { try await background.run(preemption: revalidation) { started.1.open(); await gates.1.wait() } }
        await started.1.wait()
        let visibleRan = Locked(false)
        let visible = Task { try await queue.enqueue(priority: .normal).run { visibleRan.withLock { $0 = true } } }
        #expect(await eventually { queue.pendingCount == 1 })
        #expect(!revalidation.isPreempted, "the revalidation does not count against the limit: stopping it frees nothing")
        gates.1.open()
        try await revalidating.value
        #expect(!visibleRan.withLock { $0 }, "still held back by the limit")
        gates.0.open()
        try await holding.value
        try await visible.value
        #expect(visibleRan.withLock { $0 })
    }
}
