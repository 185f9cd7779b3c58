import Foundation
import ImageFixtures
import LoopbackServer
import Testing
@_spi(Testing) @testable import CachedImageCore

/// `.decodeFullResolution`: a zoomable detail decodes the image at its own size, above every cap
/// and whatever its view's layout, in every place a size is chosen.
@Suite("A request for the full resolution", .timeLimit(.minutes(1)))
@MainActor
struct FullResolutionTests {
    private let cap = PixelSize(width: 100, height: 100)

    @Test("the pipeline decodes above its cap for it, and at the cap for the same image without it")
    func pipelineLiftsTheCap() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/photo.png", width: 400, height: 300)
            let pipeline = fixture.makePipeline { $0.maximumDecodedPixelSize = cap }
            let url = fixture.url("/photo.png")
            let capped = try await pipeline.image(for: ImageRequest(url: url))
            let full = try await pipeline.image(for: ImageRequest(url: url, options: [.decodeFullResolution]))
            #expect(capped.image.pixelSize == PixelSize(width: 100, height: 75))
            #expect(full.image.pixelSize == PixelSize(width: 400, height: 300))
            #expect(fixture.server.requestCount(for: "/photo.png") == 1, "one download for both decodes")
            // A size the request gives itself still applies.
            let sized = try await pipeline.image(for: ImageRequest(url: url, targetPixelSize: PixelSize(width: 200, height: 200), contentMode: .aspectFit, options: [.decodeFullResolution]))
            #expect(sized.image.pixelSize == PixelSize(width: 200, height: 150))
        }
    }

    @Test("with a size of its own, it is still kept apart from the capped decode of the same size, in either order")
    func keyedApartWithASize() async throws {
        for fullFirst in [false, true] {
            try await withScriptedFixture { fixture throws in
                fixture.servePNG("/photo.png", width: 400, height: 300)
                let pipeline = fixture.makePipeline { $0.maximumDecodedPixelSize = cap }
                let capped = ImageRequest(url: fixture.url("/photo.png"), targetPixelSize: PixelSize(width: 200, height: 200), contentMode: .aspectFit)
                var full = capped
                full.options.insert(.decodeFullResolution)
                #expect(ImageCacheKey(full) != ImageCacheKey(capped))
                let order = fullFirst ? [full, capped] : [capped, full]
                var sizes: [ImageRequest: PixelSize] = [:]
                for request in order { sizes[request] = try await pipeline.image(for: request).image.pixelSize }
                #expect(sizes[capped] == PixelSize(width: 100, height: 75), "full first: \(fullFirst)")
                #expect(sizes[full] == PixelSize(width: 200, height: 150), "full first: \(fullFirst)")
            }
        }
    }

    @Test("a full-resolution load joins the capped load's download in flight: one download")
    func joinsTheDownload() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/photo.png", until: gate)
            let pipeline = fixture.makePipeline { $0.maximumDecodedPixelSize = PixelSize(width: 32, height: 32) }
            let url = fixture.url("/photo.png")
            async let capped = pipeline.image(for: ImageRequest(url: url))
            async let full = pipeline.image(for: ImageRequest(url: url, options: [.decodeFullResolution]))
            #expect(await eventually { fixture.server.requestCount(for: "/photo.png") == 1 })
            for _ in 0..<1_000 { await Task.yield() }
            gate.open()
            #expect(try await capped.image.pixelSize == PixelSize(width: 32, height: 24))
            #expect(try await full.image.pixelSize == PixelSize(width: 64, height: 48))
            #expect(fixture.server.requestCount(for: "/photo.png") == 1)
        }
    }

    @Test("a subtree that asks for the full resolution is neither capped nor sized by its views")
    func subtreeOption() throws {
        let url = try #require(URL(string: "https://example.com/photo.jpg"))
        let defaults = ImageRequestDefaults(targetSize: CGSize(width: 50, height: 50), maximumDecodedPixelSize: cap, options: [.decodeFullResolution])
        #expect(defaults.applied(to: ImageRequest(url: url)).targetPixelSize == nil)
        var sizing = LayoutDecodeSize()
        sizing.record(proposedWidth: 110, proposedHeight: 110, displayScale: 3, contentMode: .aspectFill, shown: nil)
        #expect(sizing.request(for: ImageRequest(url: url), defaults: defaults).targetPixelSize == nil)
    }

    @Test("neither a subtree's defaults nor a view's layout size it")
    func layoutAndDefaultsKeepOut() throws {
        let url = try #require(URL(string: "https://example.com/photo.jpg"))
        let full = ImageRequest(url: url, options: [.decodeFullResolution])
        let defaults = ImageRequestDefaults(targetSize: CGSize(width: 50, height: 50), maximumDecodedPixelSize: cap)
        #expect(defaults.applied(to: full).targetPixelSize == nil)
        #expect(defaults.applied(to: ImageRequest(url: url)).targetPixelSize == PixelSize(width: 50, height: 50))

        var sizing = LayoutDecodeSize()
        sizing.record(proposedWidth: 110, proposedHeight: 110, displayScale: 3, contentMode: .aspectFill, shown: nil)
        #expect(sizing.request(for: full, defaults: defaults).targetPixelSize == nil)
        #expect(sizing.request(for: ImageRequest(url: url), defaults: defaults).targetPixelSize == PixelSize(width: 330, height: 330))
    }

    @Test("an image view laid out at 50x50 points shows the full image for it")
    func imageViewShowsTheFullImage() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/photo.png", width: 400, height: 300)
            let pipeline = fixture.makePipeline { $0.maximumDecodedPixelSize = cap }
            let controller = ImageViewLoadingController(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            let recorder = ImageViewLoadingControllerTests.Recorder(controller)
            let request = ImageRequest(url: fixture.url("/photo.png"), options: [.decodeFullResolution])
            controller.setRequest(request, fittingWidth: 50, height: 50, scale: 3)
            #expect(controller.request?.targetPixelSize == nil)
            try await recorder.wait { $0.last == .image(path: "/photo.png", animated: true) }
            #expect(controller.display.image?.pixelSize == PixelSize(width: 400, height: 300))
        }
    }
}
