import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import CachedImageCore

@Suite("ImageRequestDefaults: app-wide request options")
struct ImageRequestDefaultsTests {
    let url = URL(string: "https://example.com/a.jpg")

    @Test("empty defaults change nothing")
    func identity() {
        let request = ImageRequest(url: url, priority: .high, targetPixelSize: PixelSize(width: 10, height: 20), options: [.skipDiskCache])
        #expect(ImageRequestDefaults().applied(to: request) == request)
    }

    @Test("a maximum pixel size downsamples plain URL requests and caps larger fit targets; a fill target (the view's size) is kept")
    func maximum() {
        let defaults = ImageRequestDefaults(maximumDecodedPixelSize: PixelSize(width: 1200, height: 900))
        #expect(defaults.applied(to: ImageRequest(url: url)).targetPixelSize == PixelSize(width: 1200, height: 900))
        var fit = ImageRequest(url: url, targetPixelSize: PixelSize(width: 4000, height: 300))
        fit.contentMode = .aspectFit
        #expect(defaults.applied(to: fit).targetPixelSize == PixelSize(width: 1200, height: 300))
        #expect(defaults.applied(to: ImageRequest(url: url, targetPixelSize: PixelSize(width: 4000, height: 300))).targetPixelSize
            == PixelSize(width: 4000, height: 300))
        #expect(defaults.applied(to: ImageRequest(url: url, targetPixelSize: PixelSize(width: 100, height: 100))).targetPixelSize
            == PixelSize(width: 100, height: 100))
    }

    @Test("a maximum pixel size is a maximum: a plain request decodes to fit inside it, never to fill it")
    func maximumIsAFitCap() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/photo.png", width: 800, height: 600)
            let pipeline = fixture.makePipeline { $0.maximumDecodedPixelSize = nil }
            // A portrait screen's size in pixels, as the detail example sets it.
            let defaults = ImageRequestDefaults(maximumDecodedPixelSize: PixelSize(width: 234, height: 506))
            let request = defaults.applied(to: ImageRequest(url: fixture.url("/photo.png")))
            #expect(request.contentMode == .aspectFit)
            let image = try await pipeline.image(for: request).image
            #expect(image.pixelSize == PixelSize(width: 234, height: 176), "fit, not filled to 675x506")
        }
    }

    @Test("a view's own fill size larger than the maximum (and than the pipeline's cap on one side) is covered, not cut")
    func fillTargetLargerThanMaximumIsCovered() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/photo.png", width: 400, height: 300)
            // The cap: the screen's longer side squared; the view: a full-screen portrait one.
            let pipeline = fixture.makePipeline { $0.maximumDecodedPixelSize = PixelSize(width: 250, height: 250) }
            let defaults = ImageRequestDefaults(maximumDecodedPixelSize: PixelSize(width: 200, height: 200))
            let request = defaults.applied(to: ImageRequest(url: fixture.url("/photo.png"), targetPixelSize: PixelSize(width: 117, height: 250)))
            #expect(request.targetPixelSize == PixelSize(width: 117, height: 250), "the view's size, not cut to 117x200")
            let image = try await pipeline.image(for: request).image
            // The fill of the 117x250 view (333x250), its overflow bounded to 1.5x the view's
            // pixels (DecodingTarget.fillOverflowLimit): not cut to the 200x200 default (150x113).
            #expect(image.pixelSize == PixelSize(width: 241, height: 181))
        }
    }

    @Test("target size, options, priority and constrained policy fill only what the request left unset")
    func fillsUnset() {
        let fallback = URL(string: "https://example.com/small.jpg")!
        let defaults = ImageRequestDefaults(
            targetSize: CGSize(width: 300, height: 300),
            options: [.skipMemoryCache],
            priority: .low,
            constrainedNetworkPolicy: .fallback(fallback)
        )
        let plain = defaults.applied(to: ImageRequest(url: url, options: [.skipDiskCache]))
        #expect(plain.targetPixelSize == PixelSize(width: 300, height: 300))
        #expect(plain.options == [.skipDiskCache, .skipMemoryCache])
        #expect(plain.priority == .low)
        #expect(plain.constrainedNetworkPolicy == .fallback(fallback))
        #expect(plain.cacheKey == url?.absoluteString)

        let explicit = defaults.applied(to: ImageRequest(url: url, priority: .high, targetPixelSize: PixelSize(width: 50, height: 50), constrainedNetworkPolicy: .cacheOnly))
        #expect(explicit.targetPixelSize == PixelSize(width: 50, height: 50))
        #expect(explicit.priority == .high)
        #expect(explicit.constrainedNetworkPolicy == .cacheOnly)
    }

    @Test("default header fields fill in what a request does not set; a request's own field wins, whatever its case")
    func headerFields() {
        var defaults = ImageRequestDefaults()
        defaults.headerFields = ["X-User": "alice", "X-Api-Key": "k"]
        let plain = defaults.applied(to: ImageRequest(url: url))
        #expect(plain.urlRequest.value(forHTTPHeaderField: "X-User") == "alice")
        #expect(plain.urlRequest.value(forHTTPHeaderField: "x-api-key") == "k")
        var own = URLRequest(url: url!)
        own.setValue("bob", forHTTPHeaderField: "x-user")
        let explicit = defaults.applied(to: ImageRequest(urlRequest: own))
        #expect(explicit.urlRequest.value(forHTTPHeaderField: "X-User") == "bob")
        #expect(explicit.urlRequest.value(forHTTPHeaderField: "X-Api-Key") == "k")
    }
}
