import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import Testing
@testable import CachedImageCore

/// A request's own `Cache-Control`, `Pragma` and `cachePolicy`, end to end, memory included
/// (the table in the *Request cache directives* article).
@Suite("Pipeline: request cache directives")
struct PipelineRequestDirectivesTests {
    private func request(
        _ url: URL, cacheControl: String? = nil, pragma: String? = nil,
        policy: URLRequest.CachePolicy = .useProtocolCachePolicy
    ) -> ImageRequest {
        var urlRequest = URLRequest(url: url)
        urlRequest.cachePolicy = policy
        if let cacheControl { urlRequest.setValue(cacheControl, forHTTPHeaderField: "Cache-Control") }
        if let pragma { urlRequest.setValue(pragma, forHTTPHeaderField: "Pragma") }
        return ImageRequest(urlRequest: urlRequest)
    }

    /// A fresh image (max-age=3600, with an ETag) loaded once, so memory and disk hold it.
    private func loadedFresh(_ fixture: ScriptedFixture, _ path: String, headers: [String: String] = [:]) async throws -> ImagePipeline {
        fixture.servePNG(path, headers: ["Cache-Control": "max-age=3600", "ETag": "\"e\""].merging(headers) { $1 })
        let pipeline = fixture.makePipeline()
        #expect(try await pipeline.image(for: ImageRequest(url: fixture.url(path))).source == .network)
        #expect(try await pipeline.image(for: ImageRequest(url: fixture.url(path))).source == .memory)
        return pipeline
    }

    @Test("no-cache, Pragma: no-cache, max-age=0 and .reloadRevalidatingCacheData revalidate a fresh image, memory included")
    func revalidatingDirectives() async throws {
        let cases: [(String?, String?, URLRequest.CachePolicy)] = [
            ("no-cache", nil, .useProtocolCachePolicy),
            ("max-age=0", nil, .useProtocolCachePolicy),
            (nil, "no-cache", .useProtocolCachePolicy),
            (nil, nil, .reloadRevalidatingCacheData),
        ]
        for (cacheControl, pragma, policy) in cases {
            try await withScriptedFixture { fixture throws in
                let pipeline = try await loadedFresh(fixture, "/a.png")
                let response = try await pipeline.image(for: request(fixture.url("/a.png"), cacheControl: cacheControl, pragma: pragma, policy: policy))
                #expect(response.source == .revalidated, "\(String(describing: cacheControl)) \(String(describing: pragma)) \(policy)")
                let sent = try #require(fixture.server.requests(for: "/a.png").last)
                #expect(sent.header("If-None-Match") == "\"e\"")
                #expect(sent.header("Cache-Control") == cacheControl ?? "max-age=0")
                #expect(pipeline.memoryCachedImage(for: request(fixture.url("/a.png"), cacheControl: cacheControl, pragma: pragma, policy: policy)) == nil)
            }
        }
    }

    @Test(".reloadRevalidatingCacheData sends Cache-Control: max-age=0 with its validators")
    func forcedRevalidationTellsIntermediaries() async throws {
        try await withScriptedFixture { fixture throws in
            let pipeline = try await loadedFresh(fixture, "/r.png")
            let response = try await pipeline.image(for: ImageRequest(url: fixture.url("/r.png"), options: .reloadRevalidatingCacheData))
            #expect(response.source == .revalidated)
            let sent = try #require(fixture.server.requests(for: "/r.png").last)
            #expect(sent.header("Cache-Control") == "max-age=0")
            #expect(sent.header("If-None-Match") == "\"e\"")
            // An ordinary request sends no Cache-Control of its own.
            #expect(fixture.server.requests(for: "/r.png").first?.header("Cache-Control") == nil)
        }
    }

    @Test("max-age=N refuses a stored image older than N; the memory cache is not read for it")
    func maxAge() async throws {
        try await withScriptedFixture { fixture throws in
            let pipeline = try await loadedFresh(fixture, "/m.png")
            fixture.clock.advance(by: 600)
            #expect(try await pipeline.image(for: request(fixture.url("/m.png"), cacheControl: "max-age=900")).source == .disk)
            #expect(try await pipeline.image(for: request(fixture.url("/m.png"), cacheControl: "max-age=300")).source == .revalidated)
            #expect(fixture.server.requestCount(for: "/m.png") == 2)
        }
    }

    @Test("min-fresh=N refuses a stored image fresh for less than N more seconds")
    func minFresh() async throws {
        try await withScriptedFixture { fixture throws in
            let pipeline = try await loadedFresh(fixture, "/f.png")
            fixture.clock.advance(by: 3000)
            #expect(try await pipeline.image(for: request(fixture.url("/f.png"), cacheControl: "min-fresh=500")).source == .disk)
            #expect(try await pipeline.image(for: request(fixture.url("/f.png"), cacheControl: "min-fresh=700")).source == .revalidated)
        }
    }

    @Test("max-stale serves a stale image without asking, within its bound; .returnCacheDataElseLoad at any age")
    func maxStale() async throws {
        try await withScriptedFixture { fixture throws in
            let pipeline = try await loadedFresh(fixture, "/s.png")
            fixture.clock.advance(by: 4000)
            #expect(try await pipeline.image(for: request(fixture.url("/s.png"), cacheControl: "max-stale=1000")).source == .disk)
            #expect(try await pipeline.image(for: request(fixture.url("/s.png"), cacheControl: "max-stale")).source == .disk)
            fixture.clock.advance(by: 100_000)
            #expect(try await pipeline.image(for: request(fixture.url("/s.png"), policy: .returnCacheDataElseLoad)).source == .disk)
            #expect(fixture.server.requestCount(for: "/s.png") == 1)
            #expect(try await pipeline.image(for: request(fixture.url("/s.png"), cacheControl: "max-stale=1000")).source == .revalidated)
        }
    }

    @Test(".returnCacheDataElseLoad, as an option: a cached image at any age without asking, the network for what is not cached")
    func returnCacheDataElseLoadOption() async throws {
        try await withScriptedFixture { fixture throws in
            let pipeline = try await loadedFresh(fixture, "/e.png")
            fixture.clock.advance(by: 100_000)
            let anyAge = ImageRequest(url: fixture.url("/e.png"), options: [.returnCacheDataElseLoad])
            #expect(try await pipeline.image(for: anyAge).source == .disk)
            #expect(fixture.server.requestCount(for: "/e.png") == 1)
            fixture.servePNG("/new.png")
            #expect(try await pipeline.image(for: ImageRequest(url: fixture.url("/new.png"), options: [.returnCacheDataElseLoad])).source == .network)
            // The same stale image without the option is asked again.
            #expect(try await pipeline.image(for: ImageRequest(url: fixture.url("/e.png"))).source == .revalidated)
            #expect(fixture.server.requestCount(for: "/e.png") == 2)
        }
    }

    @Test("only-if-cached serves what is fresh, and fails with notCached instead of asking the network")
    func onlyIfCached() async throws {
        try await withScriptedFixture { fixture throws in
            let pipeline = try await loadedFresh(fixture, "/o.png")
            #expect(try await pipeline.image(for: request(fixture.url("/o.png"), cacheControl: "only-if-cached")).source == .memory)
            fixture.servePNG("/missing.png")
            await #expect(throws: ImagePipeline.Error.self) {
                try await pipeline.image(for: request(fixture.url("/missing.png"), cacheControl: "only-if-cached"))
            }
            fixture.clock.advance(by: 4000)
            await #expect(throws: ImagePipeline.Error.self) {
                try await pipeline.image(for: request(fixture.url("/o.png"), cacheControl: "only-if-cached"))
            }
            #expect(try await pipeline.image(for: request(fixture.url("/o.png"), cacheControl: "only-if-cached, max-stale")).source == .disk)
            #expect(fixture.server.requestCount(for: "/missing.png") == 0)
            #expect(fixture.server.requestCount(for: "/o.png") == 1)
        }
    }

    @Test("no-store keeps nothing of the response, neither on disk nor in memory, and is not answered from them")
    func noStore() async throws {
        try await withScriptedFixture { fixture throws in
            let pipeline = try await loadedFresh(fixture, "/stored.png")
            #expect(try await pipeline.image(for: request(fixture.url("/stored.png"), cacheControl: "no-store")).source == .network)
            // The stored bytes stay on disk; the decoded image of the no-store exchange is not kept
            // in memory (nor the older one, which it may have replaced).
            #expect(try await pipeline.image(for: ImageRequest(url: fixture.url("/stored.png"))).source == .disk)

            fixture.servePNG("/n.png", headers: ["Cache-Control": "max-age=3600"])
            #expect(try await pipeline.image(for: request(fixture.url("/n.png"), cacheControl: "no-store")).source == .network)
            #expect(pipeline.diskCache?.entry(forKey: fixture.url("/n.png").absoluteString) == nil)
            #expect(pipeline.memoryCachedImage(for: ImageRequest(url: fixture.url("/n.png"))) == nil)
            #expect(try await pipeline.image(for: ImageRequest(url: fixture.url("/n.png"))).source == .network)
        }
    }

    @Test(".reloadIgnoringLocalCacheData downloads again; .returnCacheDataDontLoad never asks")
    func ignoringAndCacheOnlyPolicies() async throws {
        try await withScriptedFixture { fixture throws in
            let pipeline = try await loadedFresh(fixture, "/p.png")
            #expect(try await pipeline.image(for: request(fixture.url("/p.png"), policy: .reloadIgnoringLocalCacheData)).source == .network)
            #expect(fixture.server.requests(for: "/p.png").last?.header("If-None-Match") == nil)
            fixture.clock.advance(by: 100_000)
            #expect(try await pipeline.image(for: request(fixture.url("/p.png"), policy: .returnCacheDataDontLoad)).source == .disk)
            #expect(fixture.server.requestCount(for: "/p.png") == 2)
        }
    }
}
