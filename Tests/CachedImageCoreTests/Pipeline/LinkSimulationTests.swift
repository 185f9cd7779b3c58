import Foundation
import Testing
import ImageFixtures
import LoopbackServer
@testable import CachedImageCore

/// Issue 51 end to end on a ``SimulatedNetwork``: the pipeline downloads through an emulated
/// link (the loopback server's ``LinkProfile``s: one downlink shared by every transfer, a delay
/// each way) on virtual time, and measures the link on the same clock. The tests assert the
/// order images complete in, how many download at once and what was sent; time is the
/// simulation's, so a busy machine changes nothing.
@Suite("Pipeline: downloads follow the link (simulated)", .timeLimit(.minutes(2)))
struct LinkSimulationTests {
    /// `count` photo-sized PNGs (random pixels: about 58 KB each) at `/<prefix><i>.png`.
    private func serve(_ network: SimulatedNetwork, _ prefix: String, count: Int, seed: UInt64, cacheControl: String = "max-age=3600") -> [URL] {
        (0..<count).map { index in
            network.serve("/\(prefix)\(index).png", ImageFixtures.png(width: 160, height: 120, seed: seed + UInt64(index)), cacheControl: cacheControl)
        }
    }

    private func makePipeline(_ fixture: ScriptedFixture, _ network: SimulatedNetwork) -> ImagePipeline {
        fixture.makePipeline { $0.dataLoader = network; $0.linkClock = network.clock }
    }

    /// Starts a task per request; returns the tasks and the names in the order they completed.
    private func start(_ requests: [ImageRequest], on pipeline: ImagePipeline) -> ([Task<Void, any Error>], Locked<[String]>) {
        let completed = Locked<[String]>([])
        let tasks = requests.map { request in
            Task {
                _ = try await pipeline.image(for: request)
                completed.withLock { $0.append(request.url?.lastPathComponent ?? "") }
            }
        }
        return (tasks, completed)
    }

    @Test("3G: two at a time, the screen in the order asked, prefetches once it is done; everything completes")
    func throughputBoundFollowsVisibility() async throws {
        try await withScriptedFixture { fixture in
            let network = SimulatedNetwork(profile: .threeG)
            let pipeline = makePipeline(fixture, network)
            let screen = serve(network, "screen", count: 6, seed: 100)
            let prefetch = serve(network, "prefetch", count: 2, seed: 200)
            // The prefetches are asked first: visibility, not arrival, orders the screen first.
            let requests = prefetch.map { ImageRequest(url: $0, priority: .low) } + screen.map { ImageRequest(url: $0) }
            let (tasks, _) = start(requests, on: pipeline)
            let ran1 = await network.run(pipeline) { pipeline.link.runningCount + pipeline.link.waitingCount == 8 }
            #expect(ran1)
            let finished = await network.run(pipeline) { network.completed.count == 8 }
            #expect(finished, "everything completes")
            for task in tasks { try await task.value }
            let order = network.completed.map(\.path)
            // Two run at a time, so two may end in the same instant: times, not ranks.
            let times = screen.map { url in network.completed.first { $0.path == url.path }?.at ?? .infinity }
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "the screen in the order asked: \(order)")
            #expect(Set(order.prefix(6)) == Set(screen.map(\.path)), "the screen before any prefetch: \(order)")
            #expect(Set(order.suffix(2)) == Set(prefetch.map(\.path)))
            #expect(network.limits.contains(2), "measured as throughput-bound: \(network.limits)")
            let half = (ImageFixtures.png(width: 160, height: 120, seed: 105).count) / 2
            let lastImageAtFirst = network.completed.first?.othersDelivered[screen[5].path] ?? .max
            #expect(lastImageAtFirst < half, "the screen's last image had less than half its bytes when its first completed")
            #expect(network.bytesSent < 8 * 70_000, "stepping aside resumed by range: no body sent twice (\(network.bytesSent) bytes)")
        }
    }

    @Test("3G: revalidations run beside the downloads holding the link (a 304 is not an image)")
    func revalidationsAreNotSerialised() async throws {
        try await withScriptedFixture { fixture in
            let network = SimulatedNetwork(profile: .threeG)
            let pipeline = makePipeline(fixture, network)
            let stale = serve(network, "stale", count: 4, seed: 400, cacheControl: "max-age=0")
            let (first, _) = start(stale.map { ImageRequest(url: $0) }, on: pipeline)
            let ran2 = await network.run(pipeline) { network.completed.count == 4 }
            #expect(ran2)
            for task in first { try await task.value }
            let photos = serve(network, "photo", count: 4, seed: 500)
            let (downloads, completed) = start(photos.map { ImageRequest(url: $0) }, on: pipeline)
            let ran3 = await network.run(pipeline) { pipeline.link.limit == 2 }
            #expect(ran3, "measured as throughput-bound")
            let (revalidations, revalidated) = start(stale.map { ImageRequest(url: $0) }, on: pipeline)
            let ran4 = await network.run(pipeline) { revalidated.withLock { $0.count } == 4 && completed.withLock { $0.count } == 4 }
            #expect(ran4)
            for task in downloads + revalidations { try await task.value }
            let order = network.completed.map(\.path).dropFirst(4)
            #expect(order.prefix(4).allSatisfy { $0.hasPrefix("/stale") }, "every revalidation answered before a photo completed: \(order)")
            #expect(stale.allSatisfy { network.requests(for: $0.path).last?.header("If-None-Match") != nil }, "asked with validators")
        }
    }

    @Test("latency-bound (8 Mbit/s, 500 ms round trip): measured, nothing held back or stepped aside")
    func latencyBoundKeepsTheMaximum() async throws {
        try await withScriptedFixture { fixture in
            let network = SimulatedNetwork(profile: LinkProfile(name: "far", downlinkBitsPerSecond: 8_000_000, delayMilliseconds: 250))
            let pipeline = makePipeline(fixture, network)
            let images = (0..<24).map { network.serve("/big\($0).png", ImageFixtures.png(width: 240, height: 160, seed: 300 + UInt64($0))) }
            let (tasks, _) = start(images.map { ImageRequest(url: $0) }, on: pipeline)
            let finished = await network.run(pipeline) { network.completed.count == 24 }
            #expect(finished)
            for task in tasks { try await task.value }
            #expect(pipeline.link.gauge.capacity != nil, "the link was measured")
            #expect(images.allSatisfy { network.requests(for: $0.path).count == 1 }, "none stepped aside")
            // A round trip carries four images: none counts against the link's limit, so the
            // queue's maximum runs: twelve from the start, the second dozen as the first ends.
            let firstCompletion = network.completed.first?.at ?? 0
            #expect(network.sent.filter { $0.at < firstCompletion }.count == 12, "twelve at once from the start")
            let thirteenth = network.completed[12].at
            #expect(network.sent.count == 24 && network.sent.allSatisfy { $0.at < thirteenth }, "every request sent before the second dozen's first completed")
        }
    }

    @Test("server-limited (each response at most 30 KB/s on a 10 Mbit/s link): the limit rises back to the maximum")
    func serverLimitedTransfersAreNotALink() async throws {
        try await withScriptedFixture { fixture in
            let network = SimulatedNetwork(
                profile: LinkProfile(name: "cdn", downlinkBitsPerSecond: 10_000_000, delayMilliseconds: 50), perTransferBytesPerSecond: 30_000
            )
            let pipeline = makePipeline(fixture, network)
            let images = serve(network, "cdn", count: 36, seed: 700)
            let (tasks, _) = start(images.map { ImageRequest(url: $0) }, on: pipeline)
            let startedAt = network.clock.now
            let finished = await network.run(pipeline) { network.completed.count == 36 }
            #expect(finished)
            for task in tasks { try await task.value }
            let elapsed = network.clock.now - startedAt
            let seenLimits = network.limits
            // Twelve at a time at 30 KB/s each: three rounds of about two seconds.
            #expect(elapsed < 9, "the downloads kept twelve at a time: \(elapsed) s, limits \(seenLimits)")
            #expect((seenLimits.last ?? 0) >= 10, "back to (about) the maximum: limits over time \(seenLimits)")
        }
    }

    @Test("nothing starves: a prefetch asked while the screen downloads completes once the screen is done")
    func prefetchCompletesAfterTheScreen() async throws {
        try await withScriptedFixture { fixture in
            let network = SimulatedNetwork(profile: .threeG)
            let pipeline = makePipeline(fixture, network)
            let first = serve(network, "a", count: 4, seed: 800)
            let (screen, _) = start(first.map { ImageRequest(url: $0) }, on: pipeline)
            let ran5 = await network.run(pipeline) { pipeline.link.limit == 2 }
            #expect(ran5)
            let prefetch = serve(network, "p", count: 3, seed: 900)
            let more = serve(network, "b", count: 3, seed: 950)
            let (background, _) = start(prefetch.map { ImageRequest(url: $0, priority: .low) }, on: pipeline)
            let (visible, _) = start(more.map { ImageRequest(url: $0) }, on: pipeline)
            let ran6 = await network.run(pipeline) { network.completed.count == 10 }
            #expect(ran6)
            for task in screen + background + visible { try await task.value }
            let order = network.completed.map(\.path)
            #expect(Set(order.suffix(3)) == Set(prefetch.map(\.path)), "prefetches last, and they complete: \(order)")
        }
    }
}
