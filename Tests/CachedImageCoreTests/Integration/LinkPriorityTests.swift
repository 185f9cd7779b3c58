import Foundation
import Testing
import ImageFixtures
@testable import LoopbackServer
@testable import CachedImageCore

/// Visible requests come first for the link: on a real loopback server, a request for a view on
/// screen takes the download slot of a running off-screen download (or prefetch), which stops and
/// waits for a slot again; what the server sees shows it. Order of completion only, no timing.
@Suite("Pipeline: visible requests first for the link", .timeLimit(.minutes(1)))
struct LinkPriorityTests {
    /// A fixture whose pipeline has one download slot, `slowPath` trickling a real PNG in
    /// `chunkSize` pieces and `fastPath` a small PNG at once.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    private func oneSlot(slowPath: String, chunkSize: Int, fastPath: String) async throws -> (PipelineFixture, ImagePipeline) {
        let fixture = try await PipelineFixture.start()
        let slow = ImageFixtures.png(width: 160, height: 120, seed: 7)
        fixture.server.serve(slowPath, .trickle(slow, contentType: "image/png", chunkSize: chunkSize, delay: .milliseconds(20)))
        fixture.servePNG(fastPath)
        return (fixture, fixture.makePipeline { $0.maximumConcurrentDownloads = 1 })
    }

    @Test("a visible request takes the slot of a running off-screen download, which starts over afterwards")
    func visibleTakesTheSlot() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let (fixture, pipeline) = try await oneSlot(slowPath: "/offscreen.png", chunkSize: 512, fastPath: "/visible.png")
        let order = Locked<[String]>([])

        // A row that left the screen: its download runs at the off-screen priority.
        let offscreen = pipeline.imageTask(with: ImageRequest(url: fixture.url("/offscreen.png"), priority: .low))
        let offscreenDone = Task {
            let response = try await offscreen.response
            order.withLock { $0.append("offscreen") }
            return response
        }
        #expect(await eventually { fixture.server.bytesSent > 0 }, "the off-screen download is running")

        let visible = try await pipeline.image(for: ImageRequest(url: fixture.url("/visible.png")))
        order.withLock { $0.append("visible") }
        #expect(visible.source == .network)
        let resumed = try await offscreenDone.value
        #expect(resumed.source == .network)
        #expect(order.withLock { $0 } == ["visible", "offscreen"], "the visible image did not wait behind the off-screen one")
        #expect(fixture.server.requestCount(for: "/visible.png") == 1)
        #expect(fixture.server.requestCount(for: "/offscreen.png") == 2, "stopped, then asked again from the start")
        await fixture.tearDown()
    }

    @Test("a preempted download whose response may be resumed asks only for the rest when it gets a slot again")
    func preemptedDownloadResumes() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let fixture = try await PipelineFixture.start()
        let png = ResumptionFixture.image(seed: 11)
        var slow = ResumptionFixture.response(png)
        slow.chunkSize = 512
        slow.chunkDelay = .milliseconds(20)
        fixture.server.serve("/offscreen.png", slow)
        fixture.servePNG("/visible.png")
        let pipeline = fixture.makePipeline { $0.maximumConcurrentDownloads = 1 }

        let arrived = Gate()
        let offscreen = pipeline.imageTask(with: ImageRequest(url: fixture.url("/offscreen.png"), priority: .low), progress: { received, _ in
            if received > 0 { arrived.open() }
        })
        await arrived.wait() // some of its body arrived
        _ = try await pipeline.image(for: ImageRequest(url: fixture.url("/visible.png")))
        let response = try await offscreen.response

        #expect(response.source == .network)
        #expect(response.image.pixelSize == PixelSize(width: 160, height: 120))
        let ranges = ResumptionFixture.ranges(fixture, "/offscreen.png")
        #expect(ranges.count == 2)
        #expect(ranges.first == .some(nil))
        let range = try #require(ranges.last ?? nil, "the second request asks for the rest")
        let kept = try #require(Int(range.dropFirst("bytes=".count).dropLast()))
        #expect(kept > 0 && kept < png.count)
        pipeline.diskCache?.flush()
        #expect(pipeline.diskCache?.entry(forKey: fixture.url("/offscreen.png").absoluteString)?.data == png, "byte-identical to the whole image")
        await fixture.tearDown()
    }

    @Test("a download at the visible priority keeps its slot: the next visible request waits")
    func visibleKeepsItsSlot() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let (fixture, pipeline) = try await oneSlot(slowPath: "/first.png", chunkSize: 2_048, fastPath: "/second.png")
        let order = Locked<[String]>([])
        let first = Task {
            _ = try await pipeline.image(for: ImageRequest(url: fixture.url("/first.png")))
            order.withLock { $0.append("first") }
        }
        #expect(await eventually { fixture.server.bytesSent > 0 })
        _ = try await pipeline.image(for: ImageRequest(url: fixture.url("/second.png")))
        order.withLock { $0.append("second") }
        try await first.value
        #expect(order.withLock { $0 } == ["first", "second"])
        #expect(fixture.server.requestCount(for: "/first.png") == 1)
        await fixture.tearDown()
    }

    @Test("the emulated link: one downlink for every connection, a delay each way")
    func emulatedLink() {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let link = EmulatedLink(profile: LinkProfile(name: "test", downlinkBitsPerSecond: 8_000, delayMilliseconds: 50))
        let start = ContinuousClock.now
        // 1,000 bytes at 8 kbit/s take a second; a second response ready at the same time waits.
        #expect(link.book(1_000, readyAt: start) == start + .seconds(1))
        #expect(link.book(1_000, readyAt: start) == start + .seconds(2), "the downlink is shared")
        #expect(link.book(500, readyAt: start + .seconds(5)) == start + .milliseconds(5_500), "an idle link starts when ready")
        #expect(LinkProfile.lte.transferTime(ofBytes: 1_250_000) == .milliseconds(300), "RTT 100 ms + 10 Mbit at 50 Mbit/s")
        #expect(LinkProfile.named("3G") == .threeG && LinkProfile.named("nope") == nil)
        #expect(LinkProfile.loopback.isUnlimited && !LinkProfile.wifi.isUnlimited)
    }
}
