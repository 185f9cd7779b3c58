import Foundation
import Testing
import ImageFixtures
@testable import CachedImageCore

/// UIKit sizing decisions, in core: wait for the first layout, keep the image while a larger
/// size loads, and the point scale both view layers share.
@Suite("ImageViewLoadingController: sizing for the view", .timeLimit(.minutes(1)))
@MainActor
struct ImageViewSizingTests {
    typealias Shown = ImageViewLoadingControllerTests.Shown

    private func record(_ controller: ImageViewLoadingController) -> ImageViewLoadingControllerTests.Recorder {
        ImageViewLoadingControllerTests.Recorder(controller)
    }

    @Test("a view with zero bounds loads nothing until its first layout, then decodes for that size")
    func waitsForFirstLayout() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", width: 640, height: 480)
            let controller = ImageViewLoadingController(pipeline: fixture.makePipeline())
            let recorder = record(controller)
            let request = ImageRequest(url: fixture.url("/a.png"))
            controller.setRequest(request, fittingWidth: 0, height: 0, scale: 3)
            #expect(recorder.shown == [.placeholder])
            #expect(controller.request == nil)
            #expect(fixture.server.totalRequestCount == 0, "no full-size decode for want of a size")

            controller.viewDidLayout(width: 100, height: 50, scale: 3)
            #expect(controller.request?.targetPixelSize == PixelSize(width: 300, height: 150))
            try await recorder.wait { $0.last == .image(path: "/a.png", animated: true) }
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("a larger size reloads while the current image stays on screen; a smaller one reloads nothing")
    func resizeKeepsImage() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", width: 640, height: 480)
            let controller = ImageViewLoadingController(pipeline: fixture.makePipeline())
            let recorder = record(controller)
            let request = ImageRequest(url: fixture.url("/a.png"))
            controller.setRequest(request, fittingWidth: 100, height: 100, scale: 2)
            try await recorder.wait { $0.last == .image(path: "/a.png", animated: true) }
            let shownBefore = recorder.shown.count

            // The cell is configured again with the same request (cellForItemAt): nothing changes.
            controller.setRequest(request, fittingWidth: 100, height: 100, scale: 2)
            // Rotation: larger.
            controller.viewDidLayout(width: 200, height: 150, scale: 2)
            #expect(controller.request?.targetPixelSize == PixelSize(width: 400, height: 300))
            #expect(recorder.shown.count == shownBefore, "no placeholder while the larger image loads")
            try await recorder.wait { $0.count > shownBefore }
            #expect(recorder.shown.dropFirst(shownBefore).elementsEqual([.image(path: "/a.png", animated: false)]),
                    "the sharper image replaces it without a transition: \(recorder.shown)")

            // Smaller again: the image on screen covers it.
            let requests = fixture.server.totalRequestCount
            controller.viewDidLayout(width: 100, height: 100, scale: 2)
            #expect(controller.request?.targetPixelSize == PixelSize(width: 400, height: 300))
            #expect(recorder.shown.count == shownBefore + 1)
            #expect(fixture.server.totalRequestCount == requests)
        }
    }

    @Test("an explicit target size is never changed by layout")
    func explicitTargetSizeWins() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let controller = ImageViewLoadingController(pipeline: fixture.makePipeline())
            let request = ImageRequest(url: fixture.url("/a.png"), targetPixelSize: PixelSize(width: 32, height: 32))
            controller.setRequest(request, fittingWidth: 0, height: 0, scale: 3)
            #expect(controller.request?.targetPixelSize == PixelSize(width: 32, height: 32))
            controller.viewDidLayout(width: 500, height: 500, scale: 3)
            #expect(controller.request?.targetPixelSize == PixelSize(width: 32, height: 32))
        }
    }

    @Test("the point scale: explicit wins; a target size lays out at the display's scale; otherwise 1")
    func displayScale() {
        let plain = ImageRequest(url: URL(string: "https://example.com/a.png"))
        var sized = plain
        sized.targetPixelSize = PixelSize(width: 600, height: 600)
        #expect(ImageDisplayScale.scale(for: sized, explicitScale: nil, displayScale: 3) == 3, "600 px is 200 pt on a 3x screen")
        #expect(ImageDisplayScale.scale(for: sized, explicitScale: 2, displayScale: 3) == 2)
        #expect(ImageDisplayScale.scale(for: plain, explicitScale: nil, displayScale: 3) == 1, "as AsyncImage")
        #expect(ImageDisplayScale.scale(for: plain, explicitScale: 2, displayScale: 3) == 2)
        #expect(ImageDisplayScale.scale(for: sized, explicitScale: nil, displayScale: 0) == 1)
        #expect(ImageDisplayScale.scale(for: sized, explicitScale: .nan, displayScale: 2) == 2)
    }

    @Test("one scale rule for animated frames: a capped frame keeps its source's natural size; a sized request the display's scale")
    func animatedFrameScale() {
        let plain = ImageRequest(url: URL(string: "https://example.com/a.gif"))
        var sized = plain
        sized.targetPixelSize = PixelSize(width: 300, height: 300)
        let frame = PixelSize(width: 100, height: 75)
        #expect(ImageDisplayScale.scale(1, decoded: frame, source: PixelSize(width: 400, height: 300), request: plain) == 0.25)
        #expect(ImageDisplayScale.scale(1, decoded: frame, source: nil, request: plain) == 1, "source unknown: as decoded")
        let pointScale = ImageDisplayScale.scale(for: sized, explicitScale: nil, displayScale: 3)
        #expect(ImageDisplayScale.scale(pointScale, decoded: frame, source: PixelSize(width: 400, height: 300), request: sized) == 3)
    }

    @Test("a capped decode keeps the image's natural point size when the view asked for no size, as AsyncImage lays it out")
    func capKeepsNaturalSize() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/wide.png", width: 400, height: 300)
            let pipeline = fixture.makePipeline { $0.maximumDecodedPixelSize = PixelSize(width: 100, height: 100) }
            let plain = ImageRequest(url: fixture.url("/wide.png"))
            let image = try await pipeline.image(for: plain).image
            #expect(image.pixelSize == PixelSize(width: 100, height: 75), "the cap bounds the bitmap")
            #expect(image.sourcePixelSize == PixelSize(width: 400, height: 300))
            // 100 px at 0.25 px/pt: 400 points wide, the source's size at scale 1.
            #expect(ImageDisplayScale.scale(1, for: image, request: plain) == 0.25)
            #expect(ImageDisplayScale.scale(2, for: image, request: plain) == 0.5, "an @2x source: 200 pt")
            var sized = plain
            sized.targetPixelSize = PixelSize(width: 100, height: 100)
            #expect(ImageDisplayScale.scale(3, for: image, request: sized) == 3, "a requested size lays out at the display's scale")
            var processed = plain
            processed.processors = [ImageProcessors.Custom(id: "test.identity") { $0 }]
            let processedImage = try await pipeline.image(for: processed).image
            #expect(processedImage.sourcePixelSize == nil, "a processed image's own size is its natural size")
        }
    }
}
