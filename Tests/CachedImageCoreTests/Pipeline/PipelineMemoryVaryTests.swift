import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import Testing
@testable import CachedImageCore

/// The memory cache follows `Vary` (RFC 9111 4.1) as the disk cache does: a request that sends
/// other values of the varied header fields never gets another request's decoded image.
@Suite("Pipeline: Vary in the memory cache")
struct PipelineMemoryVaryTests {
    private func request(_ url: URL, _ headers: [String: String]) -> ImageRequest {
        var urlRequest = URLRequest(url: url)
        for (name, value) in headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        return ImageRequest(urlRequest: urlRequest)
    }

    /// Serves a different PNG for each value of `X-Lang` (and `X-Size`), varying on `vary`.
    private func serveVarying(_ fixture: ScriptedFixture, _ path: String, vary: String) {
        fixture.server.serve(path) { sent in
            let seed = UInt64(abs((sent.header("X-Lang") ?? "-").hashValue % 1000) + abs((sent.header("X-Size") ?? "-").hashValue % 1000))
            return .ok(ImageFixtures.png(width: 16, height: 16, seed: seed), contentType: "image/png", headers: ["Cache-Control": "max-age=3600", "Vary": vary])
        }
    }

    @Test("another value of the varied field is a miss; each value then hits its own image")
    func noMatchIsAMiss() async throws {
        try await withScriptedFixture { fixture throws in
            serveVarying(fixture, "/v.png", vary: "X-Lang")
            let pipeline = fixture.makePipeline()
            let english = try await pipeline.image(for: request(fixture.url("/v.png"), ["X-Lang": "en"]))
            let french = try await pipeline.image(for: request(fixture.url("/v.png"), ["X-Lang": "fr"]))
            #expect(english.source == .network)
            #expect(french.source == .network)
            #expect(french.image.data != english.image.data)
            let again = try await pipeline.image(for: request(fixture.url("/v.png"), ["X-Lang": "fr"]))
            #expect(again.source == .memory)
            #expect(again.image.data == french.image.data)
            // Whitespace around a value is normalised as on disk.
            #expect(pipeline.memoryCachedImage(for: request(fixture.url("/v.png"), ["X-Lang": " fr "]))?.data == french.image.data)
            // So is whitespace around list commas, in memory and on disk (a relaunch).
            _ = try await pipeline.image(for: request(fixture.url("/v.png"), ["X-Lang": "de, en"]))
            #expect(pipeline.memoryCachedImage(for: request(fixture.url("/v.png"), ["X-Lang": "de,en"])) != nil)
            pipeline.diskCache?.flush()
            #expect(try await fixture.makePipeline().image(for: request(fixture.url("/v.png"), ["X-Lang": " de ,en"])).source == .disk)
            #expect(fixture.server.requestCount(for: "/v.png") == 3)
            #expect(try await pipeline.image(for: request(fixture.url("/v.png"), ["X-Lang": "en"])).image.data == english.image.data)
            #expect(fixture.server.requestCount(for: "/v.png") == 3)
        }
    }

    @Test("a request that omits the varied field does not get the image of one that sent it, and the reverse")
    func omittedFieldIsAMiss() async throws {
        try await withScriptedFixture { fixture throws in
            serveVarying(fixture, "/o.png", vary: "X-Lang")
            let pipeline = fixture.makePipeline()
            _ = try await pipeline.image(for: request(fixture.url("/o.png"), ["X-Lang": "en"]))
            #expect(pipeline.memoryCachedImage(for: ImageRequest(url: fixture.url("/o.png"))) == nil)
            #expect(try await pipeline.image(for: ImageRequest(url: fixture.url("/o.png"))).source == .network)
            #expect(try await pipeline.image(for: ImageRequest(url: fixture.url("/o.png"))).source == .memory)
            #expect(pipeline.memoryCachedImage(for: request(fixture.url("/o.png"), ["X-Lang": ""])) == nil)
        }
    }

    @Test("two and three varied fields, in any order, must all match")
    func severalFields() async throws {
        for vary in ["X-Lang, X-Size", "X-Size,X-Lang", "X-Lang, X-Size, X-Other"] {
            try await withScriptedFixture { fixture throws in
                serveVarying(fixture, "/s.png", vary: vary)
                let pipeline = fixture.makePipeline()
                _ = try await pipeline.image(for: request(fixture.url("/s.png"), ["X-Lang": "en", "X-Size": "s"]))
                #expect(pipeline.memoryCachedImage(for: request(fixture.url("/s.png"), ["X-Size": "s", "X-Lang": "en"])) != nil, "\(vary)")
                #expect(pipeline.memoryCachedImage(for: request(fixture.url("/s.png"), ["X-Lang": "en", "X-Size": "l"])) == nil, "\(vary)")
                #expect(pipeline.memoryCachedImage(for: request(fixture.url("/s.png"), ["X-Lang": "fr", "X-Size": "s"])) == nil, "\(vary)")
                #expect(pipeline.memoryCachedImage(for: request(fixture.url("/s.png"), ["X-Lang": "en"])) == nil, "\(vary)")
            }
        }
    }

    @Test("a response without Vary is kept under the plain key, as before; a later varying one replaces it")
    func plainThenVarying() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/p.png", headers: ["Cache-Control": "max-age=3600"])
            let pipeline = fixture.makePipeline()
            _ = try await pipeline.image(for: ImageRequest(url: fixture.url("/p.png")))
            #expect(pipeline.memoryCache?.value(forKey: ImageCacheKey(ImageRequest(url: fixture.url("/p.png")))) != nil)
            #expect(pipeline.memoryCachedImage(for: request(fixture.url("/p.png"), ["X-Lang": "en"])) != nil)

            serveVarying(fixture, "/p.png", vary: "X-Lang")
            _ = try await pipeline.image(for: ImageRequest(url: fixture.url("/p.png"), options: .reloadIgnoringLocalCacheData))
            #expect(pipeline.memoryCache?.value(forKey: ImageCacheKey(ImageRequest(url: fixture.url("/p.png")))) == nil)
            #expect(pipeline.memoryCachedImage(for: request(fixture.url("/p.png"), ["X-Lang": "en"])) == nil)
            #expect(pipeline.memoryCachedImage(for: ImageRequest(url: fixture.url("/p.png"))) != nil)
        }
    }
}
