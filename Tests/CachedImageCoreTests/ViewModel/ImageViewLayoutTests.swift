import Foundation
import ImageFixtures
import LoopbackServer
import Testing
@_spi(Testing) @testable import CachedImageCore

/// Every UIKit layout shows its image: views sized by their image (0x0 until they have one),
/// views with one known dimension, estimated-then-final sizes mid-download, scale changes and
/// cells reconfigured after a failure, driven in UIKit's call order.
@Suite("ImageViewLoadingController: every layout loads", .timeLimit(.minutes(1)))
@MainActor
struct ImageViewLayoutTests {
    typealias Shown = ImageViewLoadingControllerTests.Shown
    typealias Recorder = ImageViewLoadingControllerTests.Recorder

    private func makeController(_ fixture: ScriptedFixture, _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in })
        -> (ImageViewLoadingController, ManualScheduler) {
        let scheduler = ManualScheduler(clock: fixture.clock)
        return (ImageViewLoadingController(pipeline: fixture.makePipeline(configure), scheduler: scheduler), scheduler)
    }

    @Test("a view sized by its image (0x0, laid out again and again at 0x0) loads at the pipeline's cap and shows the image")
    func intrinsicSizeLoads() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", width: 400, height: 300)
            let (controller, _) = makeController(fixture) { $0.maximumDecodedPixelSize = PixelSize(width: 200, height: 200) }
            let recorder = Recorder(controller)
            controller.setRequest(ImageRequest(url: fixture.url("/a.png")), fittingWidth: 0, height: 0, scale: 3)
            #expect(recorder.shown == [.placeholder])
            for _ in 0..<186 { controller.viewDidLayout(width: 0, height: 0, scale: 3) }
            try await recorder.wait { $0.last == .image(path: "/a.png", animated: true) }
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
            #expect(controller.request?.targetPixelSize == nil, "no size from the layout: the cap decides")
            #expect(controller.display.image?.pixelSize == PixelSize(width: 200, height: 150))

            // The image sized the view: its first real size is covered by the image at the cap.
            controller.viewDidLayout(width: 67, height: 50, scale: 3)
            #expect(recorder.shown.count == 2, "\(recorder.shown) \(String(describing: controller.request?.targetPixelSize)) \(String(describing: controller.display.image?.pixelSize))")
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("with no layout at all before the turn ends, the view still loads (at the cap)")
    func noLayoutLoadsAtEndOfTurn() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let (controller, scheduler) = makeController(fixture)
            let recorder = Recorder(controller)
            controller.setRequest(ImageRequest(url: fixture.url("/a.png")), fittingWidth: 0, height: 0, scale: 2)
            #expect(fixture.server.totalRequestCount == 0, "the first layout may still give a size")
            scheduler.endTurn()
            try await recorder.wait { $0.last == .image(path: "/a.png", animated: true) }
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("a layout within the turn gives the size; the end of the turn then loads nothing more")
    func layoutBeforeEndOfTurnWins() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", width: 640, height: 480)
            let (controller, scheduler) = makeController(fixture)
            let recorder = Recorder(controller)
            controller.setRequest(ImageRequest(url: fixture.url("/a.png")), fittingWidth: 0, height: 0, scale: 2)
            controller.viewDidLayout(width: 50, height: 50, scale: 2)
            scheduler.endTurn()
            try await recorder.wait { $0.last == .image(path: "/a.png", animated: true) }
            #expect(controller.request?.targetPixelSize == PixelSize(width: 100, height: 100))
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("one known dimension (320x0 pt, 0x200 pt): the image is fitted to it", arguments: [(320.0, 0.0), (0.0, 120.0)])
    func oneKnownDimensionFits(width: Double, height: Double) async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", width: 1600, height: 1200)
            let (controller, _) = makeController(fixture)
            let recorder = Recorder(controller)
            controller.setRequest(ImageRequest(url: fixture.url("/a.png")), fittingWidth: width, height: height, scale: 2)
            try await recorder.wait { $0.last == .image(path: "/a.png", animated: true) }
            #expect(controller.request?.contentMode == .aspectFit)
            let expected = width > 0 ? PixelSize(width: 640, height: 480) : PixelSize(width: 320, height: 240)
            #expect(controller.display.image?.pixelSize == expected)
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("a scale change (laid out at 1x before joining a 3x window) loads the sharper image, keeping the image on screen")
    func scaleChangeRetargets() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", width: 640, height: 640)
            let (controller, _) = makeController(fixture)
            let recorder = Recorder(controller)
            controller.setRequest(ImageRequest(url: fixture.url("/a.png")), fittingWidth: 100, height: 100, scale: 1)
            try await recorder.wait { $0.last == .image(path: "/a.png", animated: true) }
            controller.viewDidLayout(width: 100, height: 100, scale: 3)
            #expect(controller.request?.targetPixelSize == PixelSize(width: 300, height: 300))
            try await recorder.wait { $0.count == 3 }
            #expect(recorder.shown == [.placeholder, .image(path: "/a.png", animated: true), .image(path: "/a.png", animated: false)])
            #expect(controller.display.image?.pixelSize == PixelSize(width: 300, height: 300))
        }
    }

    @Test("the view's drawing mode: fit or fill sizes the request by the view; an unscaled view (nil) loads it as is, at the cap")
    func drawnInMode() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", width: 640, height: 480)
            let (controller, _) = makeController(fixture)
            let request = ImageRequest(url: fixture.url("/a.png"))
            controller.setRequest(request, drawnIn: .aspectFit, width: 100, height: 100, scale: 2)
            #expect(controller.request?.targetPixelSize == PixelSize(width: 200, height: 200))
            #expect(controller.request?.contentMode == .aspectFit)
            controller.setRequest(request, drawnIn: nil, width: 100, height: 100, scale: 2)
            #expect(controller.request?.targetPixelSize == nil)
            var sized = request
            sized.targetPixelSize = PixelSize(width: 50, height: 50)
            controller.setRequest(sized, drawnIn: .aspectFit, width: 100, height: 100, scale: 2)
            #expect(controller.request == sized, "a request's own size and mode win")
        }
    }

    @Test("a cell configured again with the same URL after a dropped connection asks again and shows the image")
    func reconfigureAfterFailureAsksAgain() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/a.png", .transportFailure())
            let (controller, _) = makeController(fixture)
            let recorder = Recorder(controller)
            let request = ImageRequest(url: fixture.url("/a.png"))
            controller.setRequest(request, fittingWidth: 100, height: 100, scale: 2)
            try await recorder.wait { $0.last == .failure }

            fixture.servePNG("/a.png")
            controller.setRequest(request, fittingWidth: 100, height: 100, scale: 2) // reconfigureRows
            try await recorder.wait { $0.last == .image(path: "/a.png", animated: true) }
            #expect(fixture.server.requestCount(for: "/a.png") == 2)
        }
    }
}

extension ImageViewLoadingController.Display {
    /// The image shown, if any.
    var image: DecodedImage? {
        if case .image(let response, _) = self { return response.image }
        return nil
    }
}
