import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// A resize processor as the `CachedImage` module's `Resize` is seen by the pipeline; it
/// records the size it was given.
private struct RecordingResize: ImageResizing {
    var pixelSize: PixelSize
    var contentMode: ImageContentMode
    let seen: Locked<[PixelSize]>

    var identifier: String { "test.resize(\(pixelSize),\(contentMode.rawValue))" }

    func process(_ image: DecodedImage) throws -> DecodedImage {
        seen.withLock { $0.append(image.pixelSize) }
        var output = image
        output.pixelSize = ImageResizeGeometry(source: image.pixelSize, target: pixelSize, contentMode: contentMode, upscale: false, crop: true).canvas
        return output
    }
}

/// A decoder written before content modes: it only fits, and records the bounds it was given.
private final class FittingOnlyDecoder: ImageDecoding {
    let bounds = Locked<[PixelSize?]>([])

    func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
        bounds.withLock { $0.append(targetSize) }
        let size = info.pixelSize.map { size in targetSize.map { size.fitted(into: $0) } ?? size } ?? PixelSize(width: 0, height: 0)
        return DecodedImage(image: nil, data: data, format: info.format, pixelSize: size, cost: DecodedImage.bitmapCost(of: size))
    }
}

@Suite("Decoding at display size: fill, fit, the cap, a leading resize")
struct DecodingTargetTests {
    private let photo = PixelSize(width: 4000, height: 3000)
    private let cell = PixelSize(width: 192, height: 192)

    @Test("fill covers the target in both dimensions, fit stays inside it, neither upscales")
    func fillAndFit() {
        #expect(DecodingTarget(size: cell, contentMode: .aspectFill).decodedSize(of: photo) == PixelSize(width: 256, height: 192))
        #expect(DecodingTarget(size: cell, contentMode: .aspectFit).decodedSize(of: photo) == PixelSize(width: 192, height: 144))
        let portrait = PixelSize(width: 1080, height: 1920)  // 9:16
        let filled = DecodingTarget(size: cell).decodedSize(of: portrait)
        // A fill overflowing 1.78x is bounded to 1.5x the cell's pixels: drawn 9% enlarged.
        #expect(filled == PixelSize(width: 176, height: 313))
        #expect(filled.width * filled.height <= 192 * 192 * 3 / 2)
        let small = PixelSize(width: 100, height: 80)
        #expect(DecodingTarget(size: cell, contentMode: .aspectFill).decodedSize(of: small) == small)
        #expect(DecodingTarget(size: cell, contentMode: .aspectFit).decodedSize(of: small) == small)
        // A strip filled from a photo just big enough in one dimension: the overflow bounded,
        // drawn no more than 1.5x enlarged.
        #expect(DecodingTarget(size: PixelSize(width: 4000, height: 10)).decodedSize(of: photo) == PixelSize(width: 2666, height: 2000))
    }

    @Test("the cap is a fit cap: it fits an image with no size or a fit target; a fill target is covered, each side up to the cap's")
    func cap() {
        let cap = PixelSize(width: 2556, height: 2556)
        #expect(DecodingTarget(size: nil, maximumSize: cap).decodedSize(of: photo) == PixelSize(width: 2556, height: 1917))
        #expect(DecodingTarget(size: nil, maximumSize: nil).decodedSize(of: photo) == photo)
        #expect(DecodingTarget(size: PixelSize(width: 3000, height: 3000), contentMode: .aspectFit, maximumSize: cap).decodedSize(of: photo)
            == PixelSize(width: 2556, height: 1917))
        // A 3000x3000 fill target is more than a 2556 screen shows: covered up to 2556x2556,
        // its overflow bounded (4:3 over a square: 1.33x the target's pixels, within the limit).
        #expect(DecodingTarget(size: PixelSize(width: 3000, height: 3000), maximumSize: cap).decodedSize(of: photo) == PixelSize(width: 2951, height: 2213))
        #expect(DecodingTarget(size: nil).isUnbounded)
    }

    @Test("a fill holds at most 1.5x its view's pixels and no more than the cap's: a landscape photo or a panorama filling a portrait screen")
    func fillOverflowIsBounded() {
        let cap = PixelSize(width: 2556, height: 2556)  // an iPhone's longer side, squared
        let screen = PixelSize(width: 1179, height: 2556)
        let target = DecodingTarget(size: screen, contentMode: .aspectFill, maximumSize: cap)
        let drawn = Double(screen.width * screen.height)
        // Was 3408x2556 (2.9x the screen) and 10224x2556 (8.7x).
        #expect(Double(target.decodedSize(of: PixelSize(width: 4032, height: 3024)).pixelCount) <= 1.5 * drawn)
        #expect(target.decodedSize(of: PixelSize(width: 12000, height: 3000)) == PixelSize(width: 5112, height: 1278), "the cap's pixels")
        for source in [PixelSize(width: 4032, height: 3024), PixelSize(width: 12000, height: 3000)] {
            let decoded = target.decodedSize(of: source)
            #expect(decoded.pixelCount <= cap.pixelCount)
            #expect(decoded.pixelCount * 4 <= 256 * 1024 * 1024 / 10, "within a 256 MB memory cache's per-entry limit")
            // Aspect kept, most of the screen's height still there.
            #expect(abs(Double(decoded.width) / Double(decoded.height) - Double(source.width) / Double(source.height)) < 0.01)
            #expect(target.longestSide(forSource: source) == max(decoded.width, decoded.height))
        }
        #expect(target.decodedSize(of: PixelSize(width: 4032, height: 3024)) == PixelSize(width: 2455, height: 1841))
        // A portrait photo on a portrait screen overflows 1.63x: bounded, 4% enlarged.
        #expect(target.decodedSize(of: PixelSize(width: 3024, height: 4032)) == PixelSize(width: 1841, height: 2455))
        // The cap's pixels bound a fill target as large as the cap.
        let capFill = DecodingTarget(size: cap, contentMode: .aspectFill, maximumSize: cap).decodedSize(of: PixelSize(width: 12000, height: 3000))
        #expect(capFill.pixelCount <= cap.pixelCount)
        // Fit targets and unknown sizes stay inside the cap.
        #expect(DecodingTarget(size: screen, contentMode: .aspectFit, maximumSize: cap).decodedSize(of: photo) == PixelSize(width: 1179, height: 884))
        #expect(DecodingTarget(size: nil, maximumSize: cap).decodedSize(of: photo) == PixelSize(width: 2556, height: 1917))
    }

    @Test("the default cap is the screen's longer side squared; no screen, no cap; unknown yet, 4096")
    func defaultCapRule() {
        let cap = ImagePipeline.Configuration.decodeCap(screen: PixelSize(width: 1179, height: 2556), hasScreen: true)
        #expect(cap == PixelSize(width: 2556, height: 2556))
        #expect(ImagePipeline.Configuration.decodeCap(screen: nil, hasScreen: true) == PixelSize(width: 4096, height: 4096))
        #expect(ImagePipeline.Configuration.decodeCap(screen: nil, hasScreen: false) == nil)
        // visionOS and watchOS: no screen to read, a documented constant.
        let screenless = PixelSize(width: 1024, height: 1024)
        #expect(ImagePipeline.Configuration.decodeCap(screen: nil, hasScreen: false, screenlessCap: screenless) == screenless)
        #expect(ImagePipeline.Configuration.decodeCap(screen: PixelSize(width: 1179, height: 2556), hasScreen: true, screenlessCap: screenless) == cap)
        #if os(Linux)
        #expect(MainScreen.screenlessCap == nil, "Linux: no cap")
        #endif
        #if os(Linux)
        #expect(ImagePipeline.Configuration().maximumDecodedPixelSize == nil)
        #endif
    }

    @Test("UIKit content modes map to fill, fit, or no view-size target")
    func viewContentModes() {
        #expect(ImageContentMode(viewContentMode: 0) == .aspectFill)  // scaleToFill
        #expect(ImageContentMode(viewContentMode: 1) == .aspectFit)   // scaleAspectFit
        #expect(ImageContentMode(viewContentMode: 2) == .aspectFill)  // scaleAspectFill
        #expect(ImageContentMode(viewContentMode: 3) == .aspectFill)  // redraw
        for positioning in 4...12 {
            #expect(ImageContentMode(viewContentMode: positioning) == nil)
        }
    }

    @Test("AppKit image scalings map to fit, fill (stretched over the view), or no view-size target")
    func imageScalings() {
        #expect(ImageContentMode(imageScaling: 0) == .aspectFit)   // scaleProportionallyDown
        #expect(ImageContentMode(imageScaling: 1) == .aspectFill)  // scaleAxesIndependently
        #expect(ImageContentMode(imageScaling: 2) == nil)          // scaleNone
        #expect(ImageContentMode(imageScaling: 3) == .aspectFit)   // scaleProportionallyUpOrDown
    }

    @Test("a decoder that only fits gets the bounds whose fit is the fill size")
    func fittingOnlyDecoders() throws {
        let png = ImageFixtures.pngHeader(width: 4000, height: 3000)
        let info = try #require(ImageInfo(data: png))
        let decoder = FittingOnlyDecoder()
        let image = try decoder.decode(png, info: info, target: DecodingTarget(size: cell, contentMode: .aspectFill))
        #expect(image.pixelSize == PixelSize(width: 256, height: 192))
        #expect(decoder.bounds.withLock { $0 } == [PixelSize(width: 256, height: 192)])
    }

    @Test("the pipeline decodes fill by default and fit where asked, each under its own memory key")
    func pipelineFillAndFit() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/photo.png", width: 64, height: 48)
            let pipeline = fixture.makePipeline()
            let fill = ImageRequest(url: fixture.url("/photo.png"), targetPixelSize: PixelSize(width: 16, height: 16))
            var fit = fill
            fit.contentMode = .aspectFit
            #expect(try await pipeline.image(for: fill).image.pixelSize == PixelSize(width: 21, height: 16))
            #expect(try await pipeline.image(for: fit).image.pixelSize == PixelSize(width: 16, height: 12))
            #expect(pipeline.memoryCachedImage(for: fill)?.pixelSize == PixelSize(width: 21, height: 16))
            #expect(pipeline.memoryCachedImage(for: fit)?.pixelSize == PixelSize(width: 16, height: 12))
            #expect(pipeline.memoryCache?.count == 2)
            #expect(fixture.server.requestCount(for: "/photo.png") == 1, "one download for both sizes")
            #expect(ImageCacheKey(fill) != ImageCacheKey(fit))
            // Without a target size the mode changes nothing, not even the key.
            #expect(ImageCacheKey(ImageRequest(url: fixture.url("/photo.png"), contentMode: .aspectFit))
                == ImageCacheKey(ImageRequest(url: fixture.url("/photo.png"))))
        }
    }

    @Test("a request without a target size decodes within the pipeline's cap; nil turns the cap off")
    func pipelineCap() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/photo.png", width: 64, height: 48)
            let capped = fixture.makePipeline { $0.maximumDecodedPixelSize = PixelSize(width: 32, height: 32) }
            let request = ImageRequest(url: fixture.url("/photo.png"))
            #expect(try await capped.image(for: request).image.pixelSize == PixelSize(width: 32, height: 24))
            let uncapped = fixture.makePipeline { $0.maximumDecodedPixelSize = nil }
            #expect(try await uncapped.image(for: request).image.pixelSize == PixelSize(width: 64, height: 48))
        }
    }

    @Test("a leading resize folds into the decode: the resize gets the fill size, not the original")
    func leadingResizeFolds() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/avatar.png", width: 64, height: 48)
            let pipeline = fixture.makePipeline { $0.maximumDecodedPixelSize = nil }
            let seen = Locked<[PixelSize]>([])
            let resize = RecordingResize(pixelSize: PixelSize(width: 16, height: 16), contentMode: .aspectFill, seen: seen)
            let request = ImageRequest(url: fixture.url("/avatar.png"), processors: [resize])
            #expect(try await pipeline.image(for: request).image.pixelSize == PixelSize(width: 16, height: 16))
            #expect(seen.withLock { $0 } == [PixelSize(width: 21, height: 16)], "decoded at the fill size, never at 64x48")

            // A resize that is not first does not fold.
            let later = ImageRequest(url: fixture.url("/avatar.png"), processors: [
                ImageProcessors.Custom(id: "identity") { $0 }, resize,
            ])
            _ = try await pipeline.image(for: later)
            #expect(seen.withLock { $0.last } == PixelSize(width: 64, height: 48))
        }
    }
}

@Suite("Defaults by process: an app, an app extension")
struct ProcessDefaultsTests {
    @Test("an app extension (a .appex bundle) gets a 16 MB memory cache, a 16 MB decoding budget and the screen's shorter side squared")
    func extensionDefaults() {
        #expect(ProcessKind(mainBundleURL: URL(fileURLWithPath: "/private/var/containers/Bundle/Application/X/Photos.app")) == .app)
        #expect(ProcessKind(mainBundleURL: URL(fileURLWithPath: "/private/var/containers/Bundle/Application/X/Photos.app/PlugIns/Widget.appex")) == .appExtension)
        let screen = PixelSize(width: 1179, height: 2556), memory: UInt64 = 6 * 1024 * 1024 * 1024
        let app = ImagePipeline.Configuration.defaults(for: .app, physicalMemory: memory, screen: screen, hasScreen: true)
        #expect(app.memoryCacheCostLimit == 256 * 1024 * 1024)
        #expect(app.decodingMemoryBudget == 64 * 1024 * 1024)
        #expect(app.maximumDecodedPixelSize == PixelSize(width: 2556, height: 2556))
        let widget = ImagePipeline.Configuration.defaults(for: .appExtension, physicalMemory: memory, screen: screen, hasScreen: true)
        #expect(widget.memoryCacheCostLimit == 16 * 1024 * 1024)
        #expect(widget.decodingMemoryBudget == 16 * 1024 * 1024)
        #expect(widget.maximumDecodedPixelSize == PixelSize(width: 1179, height: 1179))
        // The cap's largest decode fits the extension's memory cache budget many times over less than the app's.
        #expect(DecodedImage.bitmapCost(of: widget.maximumDecodedPixelSize!) < 6 * 1024 * 1024)
        // Screen not known yet: the app's 4096 fallback, bounded to 2048 in an extension.
        #expect(ImagePipeline.Configuration.defaults(for: .appExtension, physicalMemory: memory, screen: nil, hasScreen: true).maximumDecodedPixelSize
            == PixelSize(width: 2048, height: 2048))
        #if os(Linux)
        #expect(ProcessKind.current == .app)
        #expect(ImagePipeline.Configuration().decodingMemoryBudget == 64 * 1024 * 1024)
        #endif
    }
}
