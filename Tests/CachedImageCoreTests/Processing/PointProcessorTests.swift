import Foundation
import Testing
@testable import CachedImageCore

/// A processor given a length in points, as `RoundedCorners(radius:)` and `GaussianBlur(radius:)`
/// are (those draw with CoreGraphics, which Linux lacks): it records the pixels it runs with.
private struct CornerRadius: DisplayScaledProcessing {
    var radius: ProcessingLength
    let seen: Locked<[Double]>

    init(points: Double, seen: Locked<[Double]> = Locked([])) {
        radius = ProcessingLength(points: points)
        self.seen = seen
    }

    init(pixels: Double, seen: Locked<[Double]> = Locked([])) {
        radius = ProcessingLength(pixels: pixels)
        self.seen = seen
    }

    var identifier: String { "test.corners(\(radius.pixels))" }

    func process(_ image: DecodedImage) throws -> DecodedImage {
        seen.withLock { $0.append(radius.pixels) }
        return image
    }

    func resolved(displayScale: Double) -> CornerRadius {
        var resolved = self
        resolved.radius = radius.resolved(displayScale: displayScale)
        return resolved
    }
}

@Suite("Processors in points: the display's scale applied by the view")
struct PointProcessorTests {
    let url = URL(string: "https://example.com/a.jpg")!

    @Test("a length in points is its points times the scale; one in pixels never changes")
    func lengths() {
        #expect(ProcessingLength(points: 8).pixels == 8 * (MainScreen.scale ?? 1), "the main screen's scale (1 where there is none) until a view resolves it")
        #expect(ProcessingLength(points: 8).resolved(displayScale: 3).pixels == 24)
        #expect(ProcessingLength(points: 8).resolved(displayScale: 3).resolved(displayScale: 2).pixels == 16)
        #expect(ProcessingLength(pixels: 8).resolved(displayScale: 3).pixels == 8)
        #expect(ProcessingLength(points: 8).resolved(displayScale: 0).pixels == 8, "an unknown scale changes nothing")
        #expect(ProcessingLength(points: 8).resolved(displayScale: .nan).pixels == 8)
    }

    @Test("a view's request runs its processors at the view's scale: 8 points are 24 pixels at 3x, and a separate cache entry from 2x")
    func requestResolvesProcessors() {
        let request = ImageRequest(url: url, processors: [CornerRadius(points: 8)])
        let at3x = request.resolvingPointSize(displayScale: 3)
        let at2x = request.resolvingPointSize(displayScale: 2)
        #expect(at3x.processors.map(\.identifier) == ["test.corners(24.0)"])
        #expect(at2x.processors.map(\.identifier) == ["test.corners(16.0)"])
        #expect(ImageCacheKey(at3x) != ImageCacheKey(at2x))
        #expect(at3x.resolvingPointSize(displayScale: 3) == at3x, "idempotent for the same display")

        let pixels = ImageRequest(url: url, processors: [CornerRadius(pixels: 8)])
        #expect(pixels.resolvingPointSize(displayScale: 3) == pixels, "pixels stay pixels")
    }

    @Test("processors nested in a composition are resolved too")
    func compositions() {
        let chain = ImageProcessors.Composition([CornerRadius(points: 4), ImageProcessors.Composition([CornerRadius(points: 2)])])
        let request = ImageRequest(url: url, processors: [chain]).resolvingPointSize(displayScale: 3)
        #expect(request.processors.map(\.identifier) == ["test.corners(12.0) > test.corners(6.0)"])
    }

    @Test("an image view's controller runs the processor at its own scale, and again at the new one when it joins a 3x window")
    @MainActor
    func imageViewScale() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", width: 64, height: 48)
            let seen = Locked<[Double]>([])
            let controller = ImageViewLoadingController(pipeline: fixture.makePipeline())
            let request = ImageRequest(url: fixture.url("/a.png"), processors: [CornerRadius(points: 8, seen: seen)])
            controller.setRequest(request, fittingWidth: 32, height: 24, scale: 1)
            #expect(controller.request?.processors.map(\.identifier) == ["test.corners(8.0)"])
            #expect(await eventually { seen.withLock { $0 } == [8] })
            // The view joins a window on a 3x screen.
            controller.viewDidLayout(width: 32, height: 24, scale: 3)
            #expect(controller.request?.processors.map(\.identifier) == ["test.corners(24.0)"])
            #expect(await eventually { seen.withLock { $0 } == [8, 24] })
        }
    }
}

@Suite("Defaults in points: a view resolves them at its display's scale")
struct PointDefaultsTests {
    let url = URL(string: "https://example.com/a.jpg")!

    @Test("a default size of 300 points is 900 pixels in a 3x view and 600 in a 2x one")
    func resolvedByTheView() {
        let defaults = ImageRequestDefaults(targetSize: CGSize(width: 300, height: 300))
        #expect(defaults.resolvingPointSize(displayScale: 3).applied(to: ImageRequest(url: url)).targetPixelSize == PixelSize(width: 900, height: 900))
        #expect(defaults.resolvingPointSize(displayScale: 2).applied(to: ImageRequest(url: url)).targetPixelSize == PixelSize(width: 600, height: 600))
        var unlaid = LayoutDecodeSize()
        unlaid.record(proposedWidth: nil, proposedHeight: nil, displayScale: 3, contentMode: .aspectFill, shown: nil)
        #expect(unlaid.request(for: ImageRequest(url: url), defaults: defaults.resolvingPointSize(displayScale: 3)).targetPixelSize == PixelSize(width: 900, height: 900))
    }

    @Test("an image resized by a leading processor lays out in points at the display's scale, as one with a target size")
    func resizedImageLaysOutInPoints() {
        struct Resize: ImageResizing {
            var pixelSize: PixelSize { PixelSize(width: 192, height: 192) }
            var contentMode: ImageContentMode { .aspectFill }
            var identifier: String { "test.resize(192)" }
            func process(_ image: DecodedImage) throws -> DecodedImage { image }
        }
        let resized = ImageRequest(url: url, processors: [Resize()])
        #expect(ImageDisplayScale.scale(for: resized, explicitScale: nil, displayScale: 3) == 3)
        #expect(ImageDisplayScale.scale(for: ImageRequest(url: url), explicitScale: nil, displayScale: 3) == 1, "AsyncImage's rule without a size")
    }
}
