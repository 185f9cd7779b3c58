import Foundation
import ImageFixtures
import Testing
@_spi(Testing) @testable import CachedImageCore

/// A view laid out before it joins a window is laid out at 1x; the 3x window it then joins
/// changes no size, so UIKit sends no layout, only a scale change (the layer's
/// `contentsScale`, the traits; AppKit: `viewDidChangeBackingProperties`). Driven in that order.
@Suite("ImageViewLoadingController: a scale change retargets like a resize", .timeLimit(.minutes(1)))
@MainActor
struct ImageViewScaleTests {
    typealias Recorder = ImageViewLoadingControllerTests.Recorder

    private func makeController(_ fixture: ScriptedFixture) -> ImageViewLoadingController {
        ImageViewLoadingController(pipeline: fixture.makePipeline(), scheduler: ManualScheduler(clock: fixture.clock))
    }

    private func servePNG(_ fixture: ScriptedFixture, _ path: String, until gate: Gate) {
        let png = ImageFixtures.png(width: 640, height: 640, seed: 5)
        fixture.server.serve(path) { _ in
            await gate.wait()
            return .ok(png, contentType: "image/png")
        }
    }

    @Test("laid out at 1x outside a window, then a 3x window mid-download: the download is joined at 3x, 1 request")
    func scaleChangeMidDownload() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            servePNG(fixture, "/a.png", until: gate)
            let controller = makeController(fixture)
            let recorder = Recorder(controller)
            // cellForRowAt, then the cell's first layout, both outside the window.
            controller.setRequest(ImageRequest(url: fixture.url("/a.png")), fittingWidth: 100, height: 100, scale: 1)
            controller.viewDidLayout(width: 100, height: 100, scale: 1)
            try await waitFor { fixture.server.requestCount(for: "/a.png") == 1 }

            controller.viewScaleDidChange(3) // joins the 3x window: no size change, no layout
            #expect(controller.request?.targetPixelSize == PixelSize(width: 300, height: 300))
            gate.open()
            try await recorder.wait { $0.last == .image(path: "/a.png", animated: true) }
            #expect(controller.display.image?.pixelSize == PixelSize(width: 300, height: 300), "not the 1x decode")
            #expect(recorder.shown == [.placeholder, .image(path: "/a.png", animated: true)])
            #expect(fixture.server.requestCount(for: "/a.png") == 1, "the retarget joined the download")
        }
    }

    @Test("laid out at 1x outside a window, the image shown, then a 3x window: the sharper image, no placeholder, no request")
    func scaleChangeAfterCompletion() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", width: 640, height: 640)
            let controller = makeController(fixture)
            let recorder = Recorder(controller)
            controller.setRequest(ImageRequest(url: fixture.url("/a.png")), fittingWidth: 100, height: 100, scale: 1)
            controller.viewDidLayout(width: 100, height: 100, scale: 1)
            try await recorder.wait { $0.last == .image(path: "/a.png", animated: true) }
            #expect(controller.display.image?.pixelSize == PixelSize(width: 100, height: 100))

            controller.viewScaleDidChange(3)
            #expect(controller.display.image != nil, "the 1x image stays on screen while the 3x one decodes")
            try await recorder.wait { $0.count == 3 }
            #expect(recorder.shown == [.placeholder, .image(path: "/a.png", animated: true), .image(path: "/a.png", animated: false)])
            #expect(controller.display.image?.pixelSize == PixelSize(width: 300, height: 300))
            #expect(fixture.server.requestCount(for: "/a.png") == 1, "decoded again from the disk cache")

            // The same scale reported again (traits and contentsScale both call) changes nothing.
            controller.viewScaleDidChange(3)
            controller.viewDidLayout(width: 100, height: 100, scale: 3)
            #expect(recorder.shown.count == 3)
        }
    }

    @Test("a view that leaves its window mid-download (traits back to 1x, same size) keeps its 3x target; back at 3x, nothing more")
    func lowerScaleKeepsTheSharperTarget() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            servePNG(fixture, "/a.png", until: gate)
            let controller = makeController(fixture)
            let recorder = Recorder(controller)
            controller.setRequest(ImageRequest(url: fixture.url("/a.png")), fittingWidth: 100, height: 100, scale: 3)
            try await waitFor { fixture.server.requestCount(for: "/a.png") == 1 }

            controller.viewDidLayout(width: 100, height: 100, scale: 1) // removed from the window
            #expect(controller.request?.targetPixelSize == PixelSize(width: 300, height: 300), "not retargeted down to 1x")
            controller.viewScaleDidChange(3) // back in the window
            gate.open()
            try await recorder.wait { $0.last == .image(path: "/a.png", animated: true) }
            #expect(recorder.shown == [.placeholder, .image(path: "/a.png", animated: true)], "one decode, at 3x")
            #expect(controller.display.image?.pixelSize == PixelSize(width: 300, height: 300))
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("the scale rule: higher scales win for a request, unknown ones keep what is known")
    func rule() {
        #expect(ViewScaleRule.scale(reported: 1, current: nil) == 1)
        #expect(ViewScaleRule.scale(reported: 0, current: nil) == 1)
        #expect(ViewScaleRule.scale(reported: 3, current: 1) == 3)
        #expect(ViewScaleRule.scale(reported: 1, current: 3) == 3)
        #expect(ViewScaleRule.scale(reported: .nan, current: 2) == 2)
    }

    /// Waits (sleeping briefly; the suite's time limit ends a hang) until `condition` holds.
    private func waitFor(_ condition: () -> Bool) async throws {
        while !condition() { try await Task.sleep(for: .milliseconds(2)) }
    }
}
