import Foundation
import Testing
import ImageFixtures
import LoopbackServer
@testable import CachedImageCore

/// Issue 51 end to end on a ``SimulatedNetwork``: the pipeline downloads through an emulated
/// link (the loopback server's ``LinkProfile``s: one downlink shared by every transfer, a delay
/// each way) on virtual time, and measures the link on the same clock. The tests assert the
/// order images complete in, how many download at once and what was sent; time is the
/// simulation's, moved only once the pipeline has settled (``SimulatedNetwork/run(_:step:timeLimit:until:)``),
/// so a busy machine delays the run, not the outcome.
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
            // Each row a little larger than the one before (27 to 58 KB): over the limit, the
            // one with most to come steps aside, so the earlier rows keep the link, whatever
            // order the transfers' bytes arrive in within an instant.
            let screenBodies = (0..<6).map { ImageFixtures.png(width: 100 + 12 * $0, height: 90 + 6 * $0, seed: 100 + UInt64($0)) }
            let screen = screenBodies.enumerated().map { network.serve("/screen\($0.offset).png", $0.element) }
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
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "the screen in the order asked: \(order), \(times)")
            #expect(Set(order.prefix(6)) == Set(screen.map(\.path)), "the screen before any prefetch: \(order)")
            #expect(Set(order.suffix(2)) == Set(prefetch.map(\.path)))
            #expect(network.limits.contains(2), "measured as throughput-bound: \(network.limits)")
            let half = screenBodies[5].count / 2
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
            // The prefetches wait in line first; the screen's next rows are asked after them.
            let (background, _) = start(prefetch.map { ImageRequest(url: $0, priority: .low) }, on: pipeline)
            let queued = await network.run(pipeline) { pipeline.activeDataJobCount == 7 && network.completed.isEmpty }
            #expect(queued)
            let askedAt = network.clock.now
            let (visible, _) = start(more.map { ImageRequest(url: $0) }, on: pipeline)
            let ran6 = await network.run(pipeline) { network.completed.count == 10 }
            #expect(ran6)
            for task in screen + background + visible { try await task.value }
            // A prefetch already under way when the rows were asked (a slot the screen's last
            // round trip left) may finish first; the others wait for the screen, and complete.
            let order = network.completed.map(\.path)
            let waited = prefetch.filter { url in !network.requests(for: url.path).contains { $0.at < askedAt } }
            let completedAt = { (path: String) in network.completed.first { $0.path == path }?.at ?? .infinity }
            let lastRow = more.map { completedAt($0.path) }.max() ?? .infinity
            #expect(waited.allSatisfy { completedAt($0.path) >= lastRow }, "prefetches after the screen: \(order)")
            #expect(prefetch.allSatisfy { completedAt($0.path) < .infinity }, "every prefetch completes")
        }
    }

    @Test("the phone leaves a fast link for 3G: the gauge measures the slower link, downloads fall to two at a time, previews turn on")
    func linkThatSlowsIsMeasured() async throws {
        try await withScriptedFixture { fixture in
            let network = SimulatedNetwork(profile: .lte)
            let pipeline = makePipeline(fixture, network)
            let fast = (0..<12).map { network.serve("/lte\($0).png", ImageFixtures.png(width: 400, height: 300, seed: 1_000 + UInt64($0))) }
            let (first, _) = start(fast.map { ImageRequest(url: $0) }, on: pipeline)
            let ran1 = await network.run(pipeline) { network.completed.count == 12 }
            #expect(ran1)
            for task in first { try await task.value }
            #expect(pipeline.link.isSlow == false, "measured fast")
            network.profile = .threeG
            let slow = serve(network, "cell", count: 16, seed: 1_100)
            let (second, _) = start(slow.map { ImageRequest(url: $0) }, on: pipeline)
            let ran2 = await network.run(pipeline) { network.completed.count == 28 }
            #expect(ran2)
            for task in second { try await task.value }
            #expect(pipeline.link.limit == 2, "limits over time: \(network.limits)")
            #expect(pipeline.link.isSlow == true)
        }
    }

    @Test("a server without ranges: a transfer with bytes never steps aside (they would be lost); every image is sent once")
    func unresumableTransfersKeepTheirBytes() async throws {
        try await withScriptedFixture { fixture in
            let network = SimulatedNetwork(profile: .threeG)
            let pipeline = makePipeline(fixture, network)
            let bodies = (0..<6).map { ImageFixtures.png(width: 160, height: 120, seed: 1_200 + UInt64($0)) }
            let urls = bodies.enumerated().map { network.serve("/plain\($0.offset).png", $0.element, resumable: false) }
            let (tasks, _) = start(urls.map { ImageRequest(url: $0) }, on: pipeline)
            let ran = await network.run(pipeline) { network.completed.count == 6 }
            #expect(ran)
            for task in tasks { try await task.value }
            #expect(network.limits.contains(2), "measured as throughput-bound: \(network.limits)")
            #expect(urls.allSatisfy { network.requests(for: $0.path).count == 1 }, "none stopped after its first bytes")
            #expect(network.bytesSent == bodies.reduce(0) { $0 + $1.count }, "no byte sent twice")
        }
    }

    @Test("3G: revalidations of changed images (a 200, not a 304) wait like downloads once they got a body, never in a loop")
    func changedImagesOnRevalidation() async throws {
        try await withScriptedFixture { fixture in
            let network = SimulatedNetwork(profile: .threeG)
            let pipeline = makePipeline(fixture, network)
            let stale = serve(network, "changing", count: 6, seed: 1_300, cacheControl: "max-age=0")
            let (first, _) = start(stale.map { ImageRequest(url: $0) }, on: pipeline)
            let ran1 = await network.run(pipeline) { network.completed.count == 6 }
            #expect(ran1)
            for task in first { try await task.value }
            #expect(pipeline.link.limit == 2)
            // Every image changed on the server: each revalidation gets a whole new body.
            for (index, url) in stale.enumerated() {
                network.serve(url.path, ImageFixtures.png(width: 160, height: 120, seed: 1_400 + UInt64(index)), cacheControl: "max-age=0")
            }
            let (second, _) = start(stale.map { ImageRequest(url: $0) }, on: pipeline)
            let ran2 = await network.run(pipeline) { network.completed.count == 12 }
            #expect(ran2)
            for task in second { try await task.value }
            let counts = stale.map { network.requests(for: $0.path).count }
            #expect(counts.allSatisfy { $0 <= 3 }, "the first download, the revalidation, at most one resumption: \(counts)")
        }
    }
}
