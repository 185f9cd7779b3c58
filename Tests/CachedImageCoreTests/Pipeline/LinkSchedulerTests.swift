import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import CachedImageCore

/// The link rule applied to the download queue (``LinkScheduler`` over ``WorkQueue``), with
/// transfers played by the test on a ``ManualUptimeClock``: what starts, what waits, what steps
/// aside. No network, no real time.
@Suite("LinkScheduler: the download queue follows the link", .timeLimit(.minutes(1)))
struct LinkSchedulerTests {
    /// A transfer holding a queue slot until `finish()` or until it is preempted.
    final class Transfer: Sendable {
        let ticket: WorkQueue.Ticket
        let preemption: Preemption
        private let linkID: Locked<Int?>
        private let done: Gate
        let task: Task<Bool, any Error>
        let scheduler: LinkScheduler

        init(_ queue: WorkQueue, _ scheduler: LinkScheduler, priority: ImageRequest.Priority = .normal, conditional: Bool = false) {
            let ticket = queue.enqueue(priority: priority, counts: !conditional)
            let (preemption, linkID, done) = (Preemption(), Locked<Int?>(nil), Gate())
            (self.preemption, self.linkID, self.done) = (preemption, linkID, done)
            self.ticket = ticket
            self.scheduler = scheduler
            task = Task {
                try await ticket.run(preemption: preemption) {
                    let id = scheduler.sent(ticket: ticket.id, conditional: conditional, priority: DataLoadPriority(priority))
                    linkID.withLock { $0 = id }
                    preemption.onPreempt { done.open() }
                    await done.wait()
                    scheduler.ended(id, complete: !preemption.isPreempted)
                    return preemption.isPreempted
                }
            }
        }

        /// Its ID in the scheduler once it runs.
        var id: Int? { linkID.withLock { $0 } }
        var isRunning: Bool { id != nil }

        func head(status: Int = 200, length: Int?) {
            var fields = ["Content-Type": "image/png", "Accept-Ranges": "bytes", "ETag": "\"v1\""]
            if let length { fields["Content-Length"] = String(length) }
            let response = HTTPURLResponse(url: URL(string: "https://example.com/x")!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)!
            scheduler.head(id!, response: response)
        }

        func receive(_ count: Int) { scheduler.received(count, of: id!) }
        func finish() { done.open() }
    }

    /// A queue of 12 slots whose scheduler measured a 3G-like link (97.5 KB/s, 200 ms round trip,
    /// 200 KB images) from two transfers that keep running: the limit is 2.
    private func measured3G() async throws -> (WorkQueue, LinkScheduler, ManualUptimeClock, [Transfer]) {
        let clock = ManualUptimeClock()
        let queue = WorkQueue(maxConcurrentCount: 12)
        let scheduler = LinkScheduler(queue: queue, maximum: 12, clock: clock)
        let running = [Transfer(queue, scheduler), Transfer(queue, scheduler)]
        #expect(await eventually { running.allSatisfy(\.isRunning) })
        clock.advance(by: 0.2)
        for transfer in running { transfer.head(length: 200_000) }
        for _ in 0..<80 {
            clock.advance(by: 0.01)
            for transfer in running { transfer.receive(487) }
        }
        #expect(scheduler.limit == 2, "measured as throughput-bound")
        return (queue, scheduler, clock, running)
    }

    @Test("throughput-bound: new downloads wait for the two running; revalidations start at once (a 304 is not an image)")
    func revalidationsAreNotSerialised() async throws {
        let (queue, _, _, running) = try await measured3G()
        let downloads = (0..<3).map { _ in Transfer(queue, running[0].scheduler) }
        let revalidations = (0..<5).map { _ in Transfer(queue, running[0].scheduler, conditional: true) }
        #expect(await eventually { revalidations.allSatisfy(\.isRunning) }, "every revalidation runs beside the downloads")
        #expect(await eventually { queue.pendingCount == 3 })
        #expect(downloads.allSatisfy { !$0.isRunning }, "whole images wait for the link")
        for revalidation in revalidations {
            revalidation.head(status: 304, length: nil)
            revalidation.finish()
        }
        #expect(queue.pendingCount == 3, "answered 304s free nothing the downloads were waiting for")
        running[0].finish()
        #expect(await eventually { downloads[0].isRunning }, "a finished download lets the next in")
        for transfer in running + downloads { transfer.finish() }
        for transfer in running + downloads + revalidations { _ = try await transfer.task.value }
    }

    @Test("a stalled transfer stops counting: the next one starts, on a tick of the clock when nothing else happens")
    func stalledTransferDoesNotHoldTheOthers() async throws {
        let (queue, scheduler, clock, running) = try await measured3G()
        let waiting = Transfer(queue, scheduler)
        #expect(await eventually { queue.pendingCount == 1 })
        // Neither running transfer receives anything: only the clock moves.
        for _ in 0..<3 {
            #expect(await eventually { clock.sleeperCount == 1 }, "the scheduler ticks while transfers run")
            clock.advance(by: LinkScheduler.tick)
        }
        #expect(!waiting.isRunning, "less than a stall: nothing changes")
        for _ in 0..<2 {
            #expect(await eventually { clock.sleeperCount == 1 })
            clock.advance(by: LinkScheduler.tick)
        }
        #expect(await eventually { waiting.isRunning }, "the stalled transfers no longer hold the link")
        #expect(queue.activeCount == 3)
        for transfer in running + [waiting] { transfer.finish() }
        for transfer in running + [waiting] { _ = try await transfer.task.value }
    }

    @Test("over the limit, the latest visible download steps aside and waits; the earlier ones keep the link")
    func excessStepsAside() async throws {
        let clock = ManualUptimeClock()
        let queue = WorkQueue(maxConcurrentCount: 12)
        let scheduler = LinkScheduler(queue: queue, maximum: 12, clock: clock)
        // Six visible downloads start before anything is measured (the stop screen).
        let screen = (0..<6).map { _ in Transfer(queue, scheduler) }
        #expect(await eventually { screen.allSatisfy(\.isRunning) })
        clock.advance(by: 0.2)
        for transfer in screen { transfer.head(length: 100_000) }
        for _ in 0..<60 {
            clock.advance(by: 0.01)
            for transfer in screen { transfer.receive(162) }
        }
        #expect(scheduler.limit == 2)
        for transfer in screen[2...] { #expect(try await transfer.task.value == true, "stepped aside") }
        #expect(!screen[0].preemption.isPreempted && !screen[1].preemption.isPreempted)
        for transfer in screen[..<2] { transfer.finish() }
        for transfer in screen[..<2] { #expect(try await transfer.task.value == false) }
    }
}
