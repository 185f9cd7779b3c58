import Foundation
import Testing
@testable import CachedImageCore

/// How many downloads run at once follows what the transfers say about the link: on a slow one
/// the next starts as the running ones near their end (images complete one after another, the
/// first much sooner, the whole screen no later); on a fast one enough run to fill the round trip.
@Suite("Downloads: concurrency from the link")
struct LinkEstimateTests {
    /// A link of `rate` bytes per second and `roundTrip` seconds shared equally by the bodies
    /// arriving, on a simulated clock (5 ms steps), with downloads started as `estimate` admits
    /// them (at most `maximum`). Returns each image's completion time, in the order asked.
    private func play(
        _ sizes: [Int], rate: Double, roundTrip: TimeInterval, maximum: Int = 12, estimate: inout LinkEstimate, from start: TimeInterval = 0
    ) -> (completions: [TimeInterval], end: TimeInterval, mostAtOnce: Int) {
        struct Running { var index: Int; var sentAt: TimeInterval; var received = 0; var started = false }
        var now = start, next = 0, running: [Running] = [], completions = Array(repeating: TimeInterval.nan, count: sizes.count)
        var mostAtOnce = 0
        let step = 0.005
        while next < sizes.count || !running.isEmpty {
            while next < sizes.count, running.count < estimate.concurrency(maximum: maximum, at: now) {
                estimate.sent(next)
                running.append(Running(index: next, sentAt: now))
                next += 1
            }
            mostAtOnce = max(mostAtOnce, running.count)
            now += step
            let arriving = running.indices.filter { now >= running[$0].sentAt + roundTrip }
            for i in arriving {
                if !running[i].started {
                    running[i].started = true
                    estimate.bodyStarted(running[i].index, sentAt: running[i].sentAt, at: now)
                    estimate.expect(sizes[running[i].index], of: running[i].index)
                }
                let chunk = min(sizes[running[i].index] - running[i].received, Int(rate * step / Double(arriving.count)))
                running[i].received += chunk
                estimate.received(chunk, of: running[i].index, at: now)
            }
            for finished in running.filter({ $0.received >= sizes[$0.index] }) {
                estimate.ended(finished.index, complete: true, at: now)
                completions[finished.index] = now - start
            }
            running.removeAll { $0.received >= sizes[$0.index] }
        }
        return (completions, now - start, mostAtOnce)
    }

    @Test("3G: after a first screen measures the link, the next screen's images arrive one after another, the first after about one image's time, the last at the link's limit")
    func slowLinkCompletesInOrder() throws {
        let (rate, roundTrip) = (97_500.0, 0.4)
        let screen = Array(repeating: 140_000, count: 12)
        var estimate = LinkEstimate()
        let first = play(screen, rate: rate, roundTrip: roundTrip, estimate: &estimate)
        #expect(first.mostAtOnce == 12, "nothing measured yet: the queue's maximum")
        let second = play(screen, rate: rate, roundTrip: roundTrip, estimate: &estimate, from: first.end)
        let oneImage = roundTrip + 140_000 / rate, limit = roundTrip + 12 * 140_000 / rate
        let firstImage = try #require(second.completions.min())
        #expect(firstImage <= 1.1 * oneImage, "first image at \(firstImage) s, one image's time \(oneImage) s (all twelve at once: \(first.completions.min()!) s)")
        #expect(second.end <= 1.05 * limit, "screen complete at \(second.end) s, the link's limit \(limit) s")
        #expect(second.completions == second.completions.sorted(), "in the order asked (visible first)")
        #expect(second.mostAtOnce <= 2)
    }

    @Test("LTE: enough at once to fill a round trip; loopback-fast: the maximum")
    func fastLinkRunsMany() {
        let screen = Array(repeating: 140_000, count: 24)
        var lte = LinkEstimate()
        let warm = play(screen, rate: 6_250_000, roundTrip: 0.1, estimate: &lte)
        let measured = play(screen, rate: 6_250_000, roundTrip: 0.1, estimate: &lte, from: warm.end)
        #expect(measured.mostAtOnce >= 4, "625 KB per round trip: \(measured.mostAtOnce) at once")
        let limit = 0.1 + 24 * 140_000 / 6_250_000
        #expect(measured.end <= 1.05 * limit + 0.01, "\(measured.end) s against \(limit) s")
    }

    @Test("nothing measured yet: the maximum; the link's rate is the bytes over the time bodies arrived, not the time waiting")
    func unknownIsMaximum() throws {
        var estimate = LinkEstimate()
        #expect(estimate.concurrency(maximum: 12, at: 0) == 12)
        #expect(LinkEstimate().concurrency(maximum: 1, at: 0) == 1)
        estimate.sent(1)
        estimate.bodyStarted(1, sentAt: 0, at: 0.3)  // 0.3 s waiting for the first byte
        estimate.received(50_000, of: 1, at: 0.8)
        estimate.ended(1, complete: true, at: 0.8)
        #expect(try #require(estimate.throughput(at: 0.8)) == 100_000)
        #expect(estimate.roundTrip == 0.3)
    }
}

@Suite("Download queue: a concurrency limit that changes")
struct WorkQueueLimitTests {
    @Test("a lower limit starts no more until fewer run; a higher one starts the waiting at once, highest priority first")
    func limitChanges() async throws {
        let queue = WorkQueue(maxConcurrentCount: 4)
        queue.setConcurrencyLimit(1)
        #expect(queue.currentConcurrencyLimit == 1)
        let started = Locked<[String]>([])
        let gate = Gate()
        func run(_ name: String, _ priority: ImageRequest.Priority) -> Task<Void, any Error> {
            let ticket = queue.enqueue(priority: priority)
            return Task {
                try await ticket.run {
                    started.withLock { $0.append(name) }
                    await gate.wait()
                }
            }
        }
        let first = run("first", .normal)
        while started.withLock({ $0.count }) < 1 { await Task.yield() }
        let low = run("low", .low), high = run("high", .high)
        while queue.pendingCount < 2 { await Task.yield() }
        #expect(started.withLock { $0 } == ["first"], "one at a time")
        queue.setConcurrencyLimit(2)
        while started.withLock({ $0.count }) < 2 { await Task.yield() }
        #expect(started.withLock { $0 } == ["first", "high"], "the visible one first")
        queue.setConcurrencyLimit(99)
        #expect(queue.currentConcurrencyLimit == 4, "never above the maximum")
        while started.withLock({ $0.count }) < 3 { await Task.yield() }
        gate.open()
        _ = try await (first.value, low.value, high.value)
    }
}
