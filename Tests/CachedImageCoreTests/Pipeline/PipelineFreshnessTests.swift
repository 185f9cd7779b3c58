import Foundation
import Testing
@testable import CachedImageCore

@Suite("Pipeline: HTTP freshness, revalidation, offline")
struct PipelineFreshnessTests {
    /// Loads bypassing memory, so every load exercises the disk cache and the network.
    private func load(_ pipeline: ImagePipeline, _ url: URL, options: ImageRequest.Options = []) async throws -> ImageResponse {
        try await pipeline.image(for: ImageRequest(url: url, options: options.union(.skipMemoryCache)))
    }

    @Test("a fresh entry is served from disk; once stale, an ETag revalidation costs a 304 and no body")
    func staleEntryRevalidatesWithETag() async throws {
        try await withScriptedFixture { fixture throws in
            let png = fixture.servePNG("/v.png", headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""])
            let pipeline = fixture.makePipeline()
            let url = fixture.url("/v.png")

            #expect(try await load(pipeline, url).source == .network)
            #expect(try await load(pipeline, url).source == .disk)
            #expect(fixture.server.requestCount(for: "/v.png") == 1)
            let bytesAfterDownload = fixture.server.bytesSent

            fixture.clock.advance(by: 120)
            let revalidated = try await load(pipeline, url)
            #expect(revalidated.source == .revalidated)
            #expect(revalidated.image.data == png)
            #expect(fixture.server.requestCount(for: "/v.png") == 2)
            #expect(fixture.server.requests(for: "/v.png").last?.header("If-None-Match") == "\"v1\"")
            #expect(fixture.server.bytesSent == bytesAfterDownload)
            #expect(pipeline.statistics.notModifiedResponses == 1)

            // The 304 refreshed the entry: fresh again for another 60 s, without the network.
            #expect(try await load(pipeline, url).source == .disk)
            #expect(fixture.server.requestCount(for: "/v.png") == 2)
        }
    }

    @Test("a stale entry whose content changed is replaced by the new download")
    func staleEntryChanged() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/c.png", seed: 1, headers: ["Cache-Control": "max-age=10", "ETag": "\"v1\""])
            let pipeline = fixture.makePipeline()
            let url = fixture.url("/c.png")
            _ = try await load(pipeline, url)
            let newer = fixture.servePNG("/c.png", seed: 2, headers: ["Cache-Control": "max-age=10", "ETag": "\"v2\""])
            fixture.clock.advance(by: 60)
            let response = try await load(pipeline, url)
            #expect(response.source == .network)
            #expect(response.image.data == newer)
            pipeline.diskCache?.flush()
            #expect(pipeline.diskCache?.entry(forKey: url.absoluteString)?.data == newer)
        }
    }

    @Test("no-store responses never touch the disk")
    func noStoreNeverTouchesDisk() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/secret.png", headers: ["Cache-Control": "no-store"])
            let pipeline = fixture.makePipeline()
            let url = fixture.url("/secret.png")
            #expect(try await load(pipeline, url).source == .network)
            pipeline.diskCache?.flush()
            #expect(pipeline.diskCache?.entryCount == 0)
            #expect(pipeline.diskCache?.totalSize == 0)
            #expect(try await load(pipeline, url).source == .network)
            #expect(fixture.server.requestCount(for: "/secret.png") == 2)
        }
    }

    @Test("offline mode serves cached bytes, even stale, and fails cleanly on a miss")
    func offlineMode() async throws {
        try await withScriptedFixture { fixture throws in
            let png = fixture.servePNG("/cached.png", headers: ["Cache-Control": "max-age=1"])
            fixture.servePNG("/never.png")
            let pipeline = fixture.makePipeline()
            _ = try await load(pipeline, fixture.url("/cached.png"))
            fixture.clock.advance(by: 3600)

            let offline = try await load(pipeline, fixture.url("/cached.png"), options: .returnCacheDataDontLoad)
            #expect(offline.source == .disk)
            #expect(offline.image.data == png)
            await #expect {
                try await load(pipeline, fixture.url("/never.png"), options: .returnCacheDataDontLoad)
            } throws: { error in
                guard case .notCached(let url) = error as? ImagePipeline.Error else { return false }
                return url == fixture.url("/never.png")
            }
            #expect(fixture.server.requestCount(for: "/cached.png") == 1)
            #expect(fixture.server.requestCount(for: "/never.png") == 0)
        }
    }

    @Test("ignoring HTTP headers keeps images until evicted, with no revalidation")
    func ignoreHTTPHeaders() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/i.png", headers: ["Cache-Control": "max-age=0, must-revalidate", "ETag": "\"x\""])
            let pipeline = fixture.makePipeline { $0.freshnessPolicy = .ignoreHTTPHeaders }
            _ = try await load(pipeline, fixture.url("/i.png"))
            fixture.clock.advance(by: 30 * 24 * 3600)
            #expect(try await load(pipeline, fixture.url("/i.png")).source == .disk)
            #expect(fixture.server.requestCount(for: "/i.png") == 1)
        }
    }

    @Test("with no freshness headers the heuristic lifetime applies")
    func heuristicLifetime() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/h.png", headers: ["ETag": "\"h\""])
            let pipeline = fixture.makePipeline { $0.freshnessPolicy = .http(heuristic: .fixed(3600)) }
            _ = try await load(pipeline, fixture.url("/h.png"))
            fixture.clock.advance(by: 3000)
            #expect(try await load(pipeline, fixture.url("/h.png")).source == .disk)
            fixture.clock.advance(by: 1000)
            #expect(try await load(pipeline, fixture.url("/h.png")).source == .revalidated)
        }
    }

    @Test("a 5xx on revalidation serves the stale image within stale-if-error, unless the server said must-revalidate")
    func staleIfError() async throws {
        try await withScriptedFixture { fixture throws in
            let png = fixture.servePNG("/lenient.png", headers: ["Cache-Control": "max-age=10, stale-if-error=600", "ETag": "\"1\""])
            fixture.servePNG("/strict.png", headers: ["Cache-Control": "max-age=10, must-revalidate, stale-if-error=600", "ETag": "\"1\""])
            let pipeline = fixture.makePipeline()
            _ = try await load(pipeline, fixture.url("/lenient.png"))
            _ = try await load(pipeline, fixture.url("/strict.png"))
            fixture.server.serve("/lenient.png", .status(503))
            fixture.server.serve("/strict.png", .status(503))
            fixture.clock.advance(by: 60)

            let lenient = try await load(pipeline, fixture.url("/lenient.png"))
            #expect(lenient.source == .disk)
            #expect(lenient.image.data == png)
            #expect(pipeline.statistics.staleResponsesServed == 1)
            await #expect {
                try await load(pipeline, fixture.url("/strict.png"))
            } throws: { error in
                guard case .badStatusCode(_, 503) = error as? ImagePipeline.Error else { return false }
                return true
            }
        }
    }

    @Test("pull to refresh revalidates a fresh entry, except an immutable one")
    func reloadRevalidating() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/mutable.png", headers: ["Cache-Control": "max-age=600", "ETag": "\"m\""])
            fixture.servePNG("/immutable.png", headers: ["Cache-Control": "max-age=600, immutable", "ETag": "\"i\""])
            let pipeline = fixture.makePipeline()
            _ = try await load(pipeline, fixture.url("/mutable.png"))
            _ = try await load(pipeline, fixture.url("/immutable.png"))
            #expect(try await load(pipeline, fixture.url("/mutable.png"), options: .reloadRevalidatingCacheData).source == .revalidated)
            #expect(try await load(pipeline, fixture.url("/immutable.png"), options: .reloadRevalidatingCacheData).source == .disk)
            #expect(fixture.server.requestCount(for: "/immutable.png") == 1)
        }
    }

    @Test("reloading ignores the caches and refreshes them")
    func reloadIgnoringLocalCacheData() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/n.png", headers: ["Cache-Control": "max-age=600"])
            let pipeline = fixture.makePipeline()
            let url = fixture.url("/n.png")
            _ = try await pipeline.image(for: url)
            let reloaded = try await pipeline.image(for: ImageRequest(url: url, options: .reloadIgnoringLocalCacheData))
            #expect(reloaded.source == .network)
            #expect(fixture.server.requestCount(for: "/n.png") == 2)
        }
    }

    @Test("Low Data Mode loads the fallback URL, or serves only the cache")
    func constrainedNetwork() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/full.png", width: 800, height: 800)
            fixture.servePNG("/small.png", width: 80, height: 80)
            let pipeline = fixture.makePipeline { $0.isNetworkConstrained = { true } }

            let fallback = ImageRequest(url: fixture.url("/full.png"), constrainedNetworkPolicy: .fallback(fixture.url("/small.png")))
            let response = try await pipeline.image(for: fallback)
            #expect(response.image.pixelSize == PixelSize(width: 80, height: 80))
            #expect(fixture.server.requestCount(for: "/full.png") == 0)
            #expect(fixture.server.requestCount(for: "/small.png") == 1)

            let cacheOnly = ImageRequest(url: fixture.url("/full.png"), constrainedNetworkPolicy: .cacheOnly)
            await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(for: cacheOnly) }
            #expect(fixture.server.requestCount(for: "/full.png") == 0)
        }
    }
}
