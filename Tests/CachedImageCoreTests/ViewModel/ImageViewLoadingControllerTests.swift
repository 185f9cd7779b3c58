import Foundation
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

/// The UIImageView integration's state machine: what a reused cell shows, against a real
/// loopback server.
@Suite("ImageViewLoadingController: image views in reused cells", .timeLimit(.minutes(1)))
@MainActor
struct ImageViewLoadingControllerTests {
    /// What the view was told to show, as comparable values.
    enum Shown: Equatable {
        case placeholder
        case image(path: String, animated: Bool)
        case failure
    }

    @MainActor
    final class Recorder {
        var shown: [Shown] = []
        init(_ controller: ImageViewLoadingController) {
            controller.onDisplay = { [weak self] display in
                switch display {
                case .placeholder: self?.shown.append(.placeholder)
                case .image(let response, let animated): self?.shown.append(.image(path: response.request.url?.path ?? "", animated: animated))
                case .failure: self?.shown.append(.failure)
                }
            }
        }

        /// Waits (yielding, no timing assumptions; the suite's time limit ends a hang) for `condition`.
        func wait(until condition: ([Shown]) -> Bool) async throws {
            while !condition(shown) {
                try await Task.sleep(for: .milliseconds(2))
            }
        }
    }

    @available(macOS 14.0, *)
    private func serveGated(_ fixture: PipelineFixture, _ path: String, gate: Gate, seed: UInt64) {
        let png = ImageFixtures.png(width: 32, height: 32, seed: seed)
        fixture.server.serve(path) { _ in
            await gate.wait()
            return .ok(png, contentType: "image/png")
        }
    }

    @Test("a memory hit is shown at once without a transition; a miss shows the placeholder, then fades in")
    @available(macOS 14.0, *)
    func firstFrame() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/hit.png")
        fixture.servePNG("/miss.png", seed: 2)
        let pipeline = fixture.makePipeline()
        _ = try await pipeline.image(for: fixture.url("/hit.png"))

        let controller = ImageViewLoadingController(pipeline: pipeline)
        let recorder = Recorder(controller)
        controller.setRequest(ImageRequest(url: fixture.url("/hit.png")))
        #expect(recorder.shown == [.image(path: "/hit.png", animated: false)])

        controller.prepareForReuse()
        controller.setRequest(ImageRequest(url: fixture.url("/miss.png")))
        #expect(recorder.shown.last == .placeholder)
        try await recorder.wait { $0.last == .image(path: "/miss.png", animated: true) }
        await fixture.tearDown()
    }

    @Test("a reused cell never shows the previous row's image, even when that image arrives late")
    @available(macOS 14.0, *)
    func reuseNeverShowsPreviousRow() async throws {
        let fixture = try await PipelineFixture.start()
        let gate = Gate()
        serveGated(fixture, "/row1.png", gate: gate, seed: 1)
        fixture.servePNG("/row2.png", seed: 2)
        let controller = ImageViewLoadingController(pipeline: fixture.makePipeline())
        let recorder = Recorder(controller)

        controller.setRequest(ImageRequest(url: fixture.url("/row1.png")))
        try await recorder.wait { _ in fixture.server.requestCount(for: "/row1.png") == 1 }
        controller.prepareForReuse()
        #expect(recorder.shown.last == .placeholder)
        controller.setRequest(ImageRequest(url: fixture.url("/row2.png")))
        try await recorder.wait { $0.contains(.image(path: "/row2.png", animated: true)) }
        gate.open()
        // Let row 1's response arrive and be dropped.
        for _ in 0..<50 { await Task.yield() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(!recorder.shown.contains { if case .image(path: "/row1.png", _) = $0 { true } else { false } })
        #expect(recorder.shown.last == .image(path: "/row2.png", animated: true))
        await fixture.tearDown()
    }

    @Test("reuse with lowerPriority lets the old download finish into the cache; cancel does not keep it")
    @available(macOS 14.0, *)
    func reuseLowersPriority() async throws {
        let fixture = try await PipelineFixture.start()
        let gate = Gate()
        serveGated(fixture, "/old.png", gate: gate, seed: 3)
        let pipeline = fixture.makePipeline()
        let controller = ImageViewLoadingController(pipeline: pipeline)
        controller.reuseBehavior = .lowerPriority(to: .low)
        let recorder = Recorder(controller)

        let old = ImageRequest(url: fixture.url("/old.png"))
        controller.setRequest(old)
        try await recorder.wait { _ in fixture.server.requestCount(for: "/old.png") == 1 }
        controller.prepareForReuse()
        #expect(controller.handedOffCount == 1)
        gate.open()
        try await recorder.wait { _ in controller.handedOffCount == 0 }
        #expect(pipeline.memoryCachedImage(for: old) != nil, "the handed-off load finished into the memory cache")
        #expect(!recorder.shown.contains { if case .image = $0 { true } else { false } })
        await fixture.tearDown()
    }

    @Test("a retry handed off on reuse keeps its download, not the failure remembered a moment ago: the image reaches the cache")
    @available(macOS 14.0, *)
    func reuseHandsOffARetry() async throws {
        let fixture = try await PipelineFixture.start()
        let gate = Gate()
        let png = ImageFixtures.png(width: 32, height: 32, seed: 4)
        let attempts = Locked(0)
        fixture.server.serve("/flaky.png") { _ in
            if attempts.withLock({ $0 += 1; return $0 }) == 1 { return .unavailable() }
            await gate.wait()
            return .ok(png, contentType: "image/png")
        }
        let pipeline = fixture.makePipeline()
        let controller = ImageViewLoadingController(pipeline: pipeline)
        controller.reuseBehavior = .lowerPriority(to: .low)
        let recorder = Recorder(controller)
        let request = ImageRequest(url: fixture.url("/flaky.png"))
        controller.setRequest(request)
        try await recorder.wait { $0.last == .failure } // the 503 is remembered for a while
        controller.retry()
        try await recorder.wait { _ in fixture.server.requestCount(for: "/flaky.png") == 2 }
        controller.prepareForReuse()
        gate.open()
        try await recorder.wait { _ in controller.handedOffCount == 0 }
        #expect(pipeline.memoryCachedImage(for: request) != nil, "the retry's download finished into the memory cache")
        #expect(fixture.server.requestCount(for: "/flaky.png") == 2)
        await fixture.tearDown()
    }

    @Test("a failure shows the failure state; retry loads again")
    @available(macOS 14.0, *)
    func failure() async throws {
        let fixture = try await PipelineFixture.start()
        let controller = ImageViewLoadingController(pipeline: fixture.makePipeline())
        let recorder = Recorder(controller)
        controller.setRequest(ImageRequest(url: fixture.url("/missing.png")))
        try await recorder.wait { $0.last == .failure }
        fixture.servePNG("/missing.png")
        controller.retry()
        try await recorder.wait { $0.last == .image(path: "/missing.png", animated: true) }
        await fixture.tearDown()
    }

    @Test("the target size comes from the view's bounds and scale, rounded up; none before layout")
    func targetSize() {
        #expect(ImageViewLoadingController.targetSize(width: 100, height: 50.2, scale: 3) == PixelSize(width: 300, height: 151))
        #expect(ImageViewLoadingController.targetSize(width: 0, height: 50, scale: 2) == nil)
        #expect(ImageViewLoadingController.targetSize(width: .infinity, height: 50, scale: 2) == nil)
    }

    @Test("setRequest(_:fittingWidth:height:scale:) decodes for the view unless the request says otherwise")
    @available(macOS 14.0, *)
    func fitting() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/a.png")
        let controller = ImageViewLoadingController(pipeline: fixture.makePipeline())
        controller.setRequest(ImageRequest(url: fixture.url("/a.png")), fittingWidth: 40, height: 30, scale: 2)
        #expect(controller.request?.targetPixelSize == PixelSize(width: 80, height: 60))
        controller.setRequest(ImageRequest(url: fixture.url("/a.png"), targetPixelSize: PixelSize(width: 7, height: 7)), fittingWidth: 40, height: 30, scale: 2)
        #expect(controller.request?.targetPixelSize == PixelSize(width: 7, height: 7))
        await fixture.tearDown()
    }
}
