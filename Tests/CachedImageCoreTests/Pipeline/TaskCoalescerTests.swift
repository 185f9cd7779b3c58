import Foundation
import Testing
@testable import CachedImageCore

@Suite("TaskCoalescer")
struct TaskCoalescerTests {
    @Test("identical subscribers share one run of the work")
    func sharesWork() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let runs = Locked(0)
        let gate = Gate()
        let subscriptions = (0..<100).map { _ in
            coalescer.subscribe(to: "a", priority: .normal) { _ in
                runs.withLock { $0 += 1 }
                await gate.wait()
                return 42
            }
        }
        #expect(subscriptions.filter { !$0.isCoalesced }.count == 1)
        gate.open()
        for subscription in subscriptions {
            #expect(try await subscription.value() == 42)
        }
        #expect(runs.withLock { $0 } == 1)
        #expect(coalescer.activeJobCount == 0)
    }

    @Test("a finished job's priority observers are released after the coalescer unlocks")
    func observersAreReleasedUnlocked() async throws {
        final class Capture: @unchecked Sendable {
            let coalescer: TaskCoalescer<String, Int>
            let releasedUnderLock: Locked<Bool?>
            init(_ coalescer: TaskCoalescer<String, Int>, _ releasedUnderLock: Locked<Bool?>) {
                self.coalescer = coalescer
                self.releasedUnderLock = releasedUnderLock
            }
            deinit { releasedUnderLock.withLock { $0 = coalescer.lock.isLocked } }
        }
        let coalescer = TaskCoalescer<String, Int>()
        let releasedUnderLock = Locked<Bool?>(nil)
        let subscription = coalescer.subscribe(to: "a", priority: .normal) { context in
            // The observer holds the only reference to the capture once this closure returns.
            let capture = Capture(coalescer, releasedUnderLock)
            context.onPriorityChange(after: context.priority) { _ in _ = capture }
            return 1
        }
        #expect(try await subscription.value() == 1)
        #expect(releasedUnderLock.withLock { $0 } == false)
    }

    @Test("cancelling one of two subscribers does not cancel the work")
    func cancelOneKeepsWork() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let gate = Gate()
        let workCancelled = Locked(false)
        let work: TaskCoalescer<String, Int>.Work = { _ in
            await gate.wait()
            workCancelled.withLock { $0 = Task.isCancelled }
            return 7
        }
        let first = coalescer.subscribe(to: "a", priority: .normal, work: work)
        let second = coalescer.subscribe(to: "a", priority: .normal, work: work)
        let waiting = Task { try await first.value() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        gate.open()
        #expect(try await second.value() == 7)
        #expect(workCancelled.withLock { $0 } == false)
    }

    @Test("the work is cancelled when its last subscriber leaves")
    func cancelAllCancelsWork() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let started = Gate()
        let sawCancellation = Gate()
        let work: TaskCoalescer<String, Int>.Work = { _ in
            started.open()
            while !Task.isCancelled { await Task.yield() }
            sawCancellation.open()
            throw CancellationError()
        }
        let first = coalescer.subscribe(to: "a", priority: .normal, work: work)
        let second = coalescer.subscribe(to: "a", priority: .normal, work: work)
        await started.wait()
        first.cancel()
        #expect(coalescer.activeJobCount == 1)
        second.cancel()
        await sawCancellation.wait()
        #expect(coalescer.activeJobCount == 0)
        await #expect(throws: CancellationError.self) { try await second.value() }
    }

    @Test("a job runs at the highest priority of its subscribers and follows changes")
    func priorityIsMaximum() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let gate = Gate()
        let observed = Recorder<ImageRequest.Priority>()
        let registered = Gate()
        let work: TaskCoalescer<String, Int>.Work = { context in
            context.onPriorityChange(after: context.priority) { observed.append($0) }
            registered.open()
            await gate.wait()
            return context.priority.rawValue
        }
        let low = coalescer.subscribe(to: "a", priority: .low, work: work)
        await registered.wait()
        let high = coalescer.subscribe(to: "a", priority: .high, work: work)
        low.setPriority(.veryHigh)
        low.setPriority(.veryLow)
        high.cancel()
        #expect(observed.values == [.high, .veryHigh, .high, .veryLow])
        gate.open()
        #expect(try await low.value() == ImageRequest.Priority.veryLow.rawValue)
    }

    @Test("two raises racing on two threads reach the work in order: the last priority it sees is the job's")
    func racingPriorityChangesArriveInOrder() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let observed = Recorder<ImageRequest.Priority>()
        let registered = Gate()
        let finish = Gate()
        // The observer call for .normal stops until the test lets it go: thread A, preempted
        // between raising the job and telling the work.
        let enteredNormal = DispatchSemaphore(value: 0)
        let releaseNormal = DispatchSemaphore(value: 0)
        let owner = coalescer.subscribe(to: "a", priority: .low) { context in
            context.onPriorityChange(after: context.priority) { priority in
                if priority == .normal {
                    enteredNormal.signal()
                    releaseNormal.wait()
                }
                observed.append(priority)
            }
            registered.open()
            await finish.wait()
            return context.priority.rawValue
        }
        await registered.wait()
        let threadADone = DispatchSemaphore(value: 0)
        Thread {
            _ = coalescer.subscribe(to: "a", priority: .normal)
            threadADone.signal()
        }.start()
        enteredNormal.wait()
        _ = coalescer.subscribe(to: "a", priority: .high) // thread B, while A is stopped
        releaseNormal.signal()
        threadADone.wait()
        #expect(observed.values.last == .high, "the work runs at \(observed.values.last.map { "\($0)" } ?? "nothing"), the job at high")
        finish.open()
        #expect(try await owner.value() == ImageRequest.Priority.high.rawValue)
    }

    @Test("progress reaches every subscriber")
    func progressFansOut() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let gate = Gate()
        let seen = Recorder<Int64>()
        let work: TaskCoalescer<String, Int>.Work = { context in
            await gate.wait()
            context.reportProgress(5, 10)
            context.reportProgress(10, 10)
            return 1
        }
        let first = coalescer.subscribe(to: "a", priority: .normal, progress: { received, _ in seen.append(received) }, work: work)
        let second = coalescer.subscribe(to: "a", priority: .normal, progress: { received, _ in seen.append(received * 100) }, work: work)
        gate.open()
        _ = try await first.value()
        _ = try await second.value()
        #expect(seen.values.sorted() == [5, 10, 500, 1000])
    }

    @Test("a key whose job finished starts fresh work; errors reach every subscriber")
    func restartsAfterCompletion() async throws {
        struct Failure: Error {}
        let coalescer = TaskCoalescer<String, Int>()
        let failing = coalescer.subscribe(to: "a", priority: .normal) { _ in throw Failure() }
        await #expect(throws: Failure.self) { try await failing.value() }
        let succeeding = coalescer.subscribe(to: "a", priority: .normal) { _ in 3 }
        #expect(succeeding.isCoalesced == false)
        #expect(try await succeeding.value() == 3)
    }
}
