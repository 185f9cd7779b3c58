import Foundation
import ImageFixtures
import LoopbackServer
import Testing
@_spi(Testing) @testable import CachedImageCore

/// A view replacing its request mid-download joins the download before it lets go.
@Suite("Handover never restarts a download", .timeLimit(.minutes(1)))
@MainActor
struct HandoverTests {
    @available(macOS 14.0, *)
    private func serveGated(_ fixture: PipelineFixture, _ path: String, gate: Gate) {
        let png = ImageFixtures.png(width: 640, height: 640, seed: 3)
        fixture.server.serve(path) { _ in
            await gate.wait()
            return .ok(png, contentType: "image/png")
        }
    }

    @Test("a cell laid out at its estimated size (44 pt) then its final size (200 pt) mid-download makes 1 request", arguments: [false, true])
    @available(macOS 14.0, *)
    func estimatedThenFinalSize(lowerPriorityOnReuse: Bool) async throws {
        let fixture = try await PipelineFixture.start()
        let gate = Gate()
        serveGated(fixture, "/cell.png", gate: gate)
        let controller = ImageViewLoadingController(pipeline: fixture.makePipeline())
        if lowerPriorityOnReuse { controller.reuseBehavior = .lowerPriority(to: .low) }
        let recorder = ImageViewLoadingControllerTests.Recorder(controller)
        controller.setRequest(ImageRequest(url: fixture.url("/cell.png")), fittingWidth: 44, height: 44, scale: 3)
        try await waitFor { fixture.server.requestCount(for: "/cell.png") == 1 }

        controller.viewDidLayout(width: 200, height: 200, scale: 3)
        #expect(controller.request?.targetPixelSize == PixelSize(width: 600, height: 600))
        gate.open()
        try await recorder.wait { $0.last == .image(path: "/cell.png", animated: true) }
        #expect(fixture.server.requestCount(for: "/cell.png") == 1, "the resize joined the download")
        #expect(controller.display.image?.pixelSize == PixelSize(width: 600, height: 600))
        await fixture.tearDown()
    }

    @Test("a SwiftUI view whose target size (or priority) changes mid-download makes 1 request")
    @available(macOS 14.0, *)
    func swiftUITargetChange() async throws {
        let fixture = try await PipelineFixture.start()
        let gate = Gate()
        serveGated(fixture, "/v.png", gate: gate)
        let loader = ImageLoader(pipeline: fixture.makePipeline())
        var request = ImageRequest(url: fixture.url("/v.png"), targetPixelSize: PixelSize(width: 100, height: 100))
        _ = loader.phase(for: request)
        loader.didAppear()
        loader.load(request)
        try await waitFor { fixture.server.requestCount(for: "/v.png") == 1 }
        request.targetPixelSize = PixelSize(width: 300, height: 300)
        _ = loader.phase(for: request)
        loader.load(request)
        request.priority = .high
        loader.load(request)
        gate.open()
        try await waitFor { loader.phase.response != nil }
        #expect(loader.phase.response?.image.pixelSize == PixelSize(width: 300, height: 300))
        #expect(fixture.server.requestCount(for: "/v.png") == 1)
        await fixture.tearDown()
    }
}

extension HandoverTests {
    /// Waits (sleeping briefly, no timing assumptions: the suite's time limit ends a hang) until
    /// the request reached the server.
    private func waitFor(_ condition: () -> Bool) async throws {
        while !condition() { try await Task.sleep(for: .milliseconds(2)) }
    }

    @Test("an animated view resized mid-download makes 1 request")
    func animatedResize() async throws {
        try await withScriptedFixture { fixture in
            let gate = Gate()
            let gif = ImageFixtures.animatedGIF(width: 8, height: 8, delays: [10, 10], loopCount: 0)
            fixture.server.serve("/a.gif") { _ in
                await gate.wait()
                return .ok(gif, contentType: "image/gif")
            }
            let factory = FakeSourceFactory()
            let player = AnimationPlayer<FakeFrameSource>(clock: ManualUptimeClock(), makeSource: { factory.make($0, $1) })
            let pipeline = fixture.makePipeline()
            player.load(ImageRequest(url: fixture.url("/a.gif"), targetPixelSize: PixelSize(width: 44, height: 44)), pipeline: pipeline)
            try await waitFor { fixture.server.requestCount(for: "/a.gif") == 1 }
            player.load(ImageRequest(url: fixture.url("/a.gif"), targetPixelSize: PixelSize(width: 200, height: 200)), pipeline: pipeline)
            gate.open()
            #expect(await waitUntil(player) { player.playback.animation != nil })
            #expect(fixture.server.requestCount(for: "/a.gif") == 1)
        }
    }
}
