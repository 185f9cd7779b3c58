import Foundation
import Testing
@testable import CachedImageCore

/// A size in points, as SwiftUI and UIKit lay views out: one conversion rule, the scale applied
/// by whoever knows the display (a view), pixels for the engine.
@Suite("ImageRequest: a target size in points")
struct ImageRequestPointSizeTests {
    @Test("points times the scale, rounded up to whole pixels; an invalid scale counts as 1; an empty side is no size")
    func conversionRule() {
        #expect(PixelSize(points: CGSize(width: 100, height: 50), scale: 3) == PixelSize(width: 300, height: 150))
        #expect(PixelSize(points: CGSize(width: 33.4, height: 10), scale: 3) == PixelSize(width: 101, height: 30))
        #expect(PixelSize(points: CGSize(width: 64, height: 64), scale: 2) == PixelSize(width: 128, height: 128))
        #expect(PixelSize(points: CGSize(width: 10, height: 10), scale: 0) == PixelSize(width: 10, height: 10))
        #expect(PixelSize(points: CGSize(width: 10, height: 10), scale: .nan) == PixelSize(width: 10, height: 10))
        #expect(PixelSize(points: CGSize(width: 0, height: 10), scale: 3) == nil)
        #expect(PixelSize(points: CGSize(width: 10, height: -1), scale: 3) == nil)
        #expect(PixelSize(points: CGSize(width: Double.infinity, height: 10), scale: 3) == nil)
        #expect(PixelSize(points: CGSize(width: 1e12, height: 10), scale: 3) == nil)
    }

    @Test("the views' automatic sizing follows the same rule")
    @MainActor
    func layoutSizingSharesTheRule() {
        let sizes: [(Double, Double, Double)] = [(110, 110, 3), (33.4, 10, 3), (390.5, 844, 2), (1, 1, 1.5)]
        for (width, height, scale) in sizes {
            let rule = PixelSize(points: CGSize(width: width, height: height), scale: scale)
            #expect(LayoutDecodeSize.pixelTarget(proposedWidth: width, proposedHeight: height, displayScale: scale) == rule)
            #expect(ImageViewLoadingController.targetSize(width: width, height: height, scale: scale) == rule)
        }
    }

    @Test("outside a view the main screen's scale applies (1 where there is none); a view applies its own")
    func resolvedByTheDisplay() throws {
        let url = try #require(URL(string: "https://example.com/a.jpg"))
        let request = ImageRequest(url: url, targetSize: CGSize(width: 100, height: 80), contentMode: .aspectFit)
        #expect(request.targetSize == CGSize(width: 100, height: 80))
        let main = MainScreen.scale ?? 1
        #expect(request.targetPixelSize == PixelSize(points: CGSize(width: 100, height: 80), scale: main), "the main screen's scale (1 where there is none)")
        #expect(request.contentMode == .aspectFit)

        let onRetina = request.resolvingPointSize(displayScale: 3)
        #expect(onRetina.targetPixelSize == PixelSize(width: 300, height: 240))
        #expect(onRetina.targetSize == CGSize(width: 100, height: 80), "still in points: another display resolves it again")
        #expect(onRetina.resolvingPointSize(displayScale: 2).targetPixelSize == PixelSize(width: 200, height: 160))
        #expect(onRetina.resolvingPointSize(displayScale: 3) == onRetina, "idempotent: the same request for the same display")
    }

    @Test("a size in pixels is never rescaled, and setting one clears the size in points")
    func pixelsWin() throws {
        let url = try #require(URL(string: "https://example.com/a.jpg"))
        let pixels = ImageRequest(url: url, targetPixelSize: PixelSize(width: 600, height: 600))
        #expect(pixels.targetSize == nil)
        #expect(pixels.resolvingPointSize(displayScale: 3) == pixels)

        var request = ImageRequest(url: url, targetSize: CGSize(width: 100, height: 100))
        request.targetPixelSize = PixelSize(width: 50, height: 50)
        #expect(request.targetSize == nil)
        #expect(request.resolvingPointSize(displayScale: 3).targetPixelSize == PixelSize(width: 50, height: 50))

        request.targetSize = nil
        #expect(request.targetSize == nil)
        #expect(request.targetPixelSize == nil)
        #expect(ImageRequest(url: url).resolvingPointSize(displayScale: 3).targetPixelSize == nil)
    }

    @Test("an image view decodes a request in points at its own scale, and again when the scale changes")
    @MainActor
    func imageViewAppliesItsScale() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", width: 640, height: 480)
            let controller = ImageViewLoadingController(pipeline: fixture.makePipeline())
            let request = ImageRequest(url: fixture.url("/a.png"), targetSize: CGSize(width: 50, height: 40))
            // The view's bounds do not matter: the request says how large it is shown.
            controller.setRequest(request, fittingWidth: 0, height: 0, scale: 2)
            #expect(controller.request?.targetPixelSize == PixelSize(width: 100, height: 80))
            // The view joins a window on a 3x screen.
            controller.viewDidLayout(width: 320, height: 200, scale: 3)
            #expect(controller.request?.targetPixelSize == PixelSize(width: 150, height: 120))
        }
    }
}
