import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import Testing
@testable import CachedImageCore

/// RFC 9111 as the pipeline applies it end to end, against the loopback server: heuristic
/// freshness, stale-if-error limits, offline and must-revalidate, stale-while-revalidate,
/// Vary and the validators of a 304.
@Suite("Pipeline: HTTP caching rules end to end")
struct PipelineHTTPCachingTests {
    /// Loads bypassing memory, so every load exercises the disk cache and the network.
    private func load(_ pipeline: ImagePipeline, _ url: URL, options: ImageRequest.Options = []) async throws -> ImageResponse {
        try await pipeline.image(for: ImageRequest(url: url, options: options.union(.skipMemoryCache)))
    }

    private func status(of error: any Error) -> Int? {
        guard case .badStatusCode(_, let status)? = error as? ImagePipeline.Error else { return nil }
        return status
    }

    @Test("without an explicit lifetime, freshness is 10% of the time since Last-Modified (RFC 9111 4.2.2)")
    func heuristicFromLastModified() async throws {
        try await withScriptedFixture { fixture throws in
            let now = fixture.clock.now
            fixture.servePNG("/s3.png", headers: [
                "Date": HTTPDate.format(now),
                "Last-Modified": HTTPDate.format(now.addingTimeInterval(-2 * 3600)),
                "ETag": "\"s3\"",
            ])
            let pipeline = fixture.makePipeline()
            _ = try await load(pipeline, fixture.url("/s3.png"))
            fixture.clock.advance(by: 11 * 60)
            #expect(try await load(pipeline, fixture.url("/s3.png")).source == .disk)
            fixture.clock.advance(by: 2 * 60)
            #expect(try await load(pipeline, fixture.url("/s3.png")).source == .revalidated)
        }
    }

    @Test("a 5xx serves stale only within stale-if-error; no-cache never; a dropped connection does")
    func staleIfErrorLimits() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/plain.png", headers: ["Cache-Control": "max-age=10", "ETag": "\"p\""])
            let windowed = fixture.servePNG("/window.png", headers: ["Cache-Control": "max-age=10, stale-if-error=60", "ETag": "\"w\""])
            fixture.servePNG("/nocache.png", headers: ["Cache-Control": "no-cache", "ETag": "\"n\""])
            fixture.servePNG("/dropped.png", headers: ["Cache-Control": "max-age=10", "ETag": "\"d\""])
            let pipeline = fixture.makePipeline { $0.failureCachePolicy = .disabled }
            for path in ["/plain.png", "/window.png", "/nocache.png", "/dropped.png"] {
                _ = try await load(pipeline, fixture.url(path))
                fixture.server.serve(path, .status(503))
            }
            fixture.server.serve("/dropped.png", .transportFailure())
            fixture.clock.advance(by: 40) // 30 s stale

            await #expect { try await load(pipeline, fixture.url("/plain.png")) } throws: { status(of: $0) == 503 }
            #expect(try await load(pipeline, fixture.url("/window.png")).image.data == windowed)
            await #expect { try await load(pipeline, fixture.url("/nocache.png")) } throws: { status(of: $0) == 503 }
            #expect(try await load(pipeline, fixture.url("/dropped.png")).source == .disk)

            fixture.clock.advance(by: 60) // 90 s stale: past the window
            await #expect { try await load(pipeline, fixture.url("/window.png")) } throws: { status(of: $0) == 503 }
        }
    }

    @Test("offline, a stale must-revalidate or no-cache entry is not served; a stale plain one is")
    func offlineHonoursMustRevalidate() async throws {
        try await withScriptedFixture { fixture throws in
            let plain = fixture.servePNG("/plain.png", headers: ["Cache-Control": "max-age=10"])
            fixture.servePNG("/strict.png", headers: ["Cache-Control": "max-age=10, must-revalidate"])
            fixture.servePNG("/nocache.png", headers: ["Cache-Control": "no-cache", "ETag": "\"n\""])
            let pipeline = fixture.makePipeline()
            for path in ["/plain.png", "/strict.png", "/nocache.png"] { _ = try await load(pipeline, fixture.url(path)) }
            fixture.clock.advance(by: 60)

            #expect(try await load(pipeline, fixture.url("/plain.png"), options: .returnCacheDataDontLoad).image.data == plain)
            for path in ["/strict.png", "/nocache.png"] {
                await #expect {
                    try await load(pipeline, fixture.url(path), options: .returnCacheDataDontLoad)
                } throws: { error in
                    guard case .notCached = error as? ImagePipeline.Error else { return false }
                    return true
                }
            }
            #expect(fixture.server.totalRequestCount == 3)
        }
    }

    @Test("stale-while-revalidate serves at once and revalidates once in the background")
    func staleWhileRevalidate() async throws {
        try await withScriptedFixture { fixture throws in
            let old = fixture.servePNG("/feed.png", seed: 1, headers: ["Cache-Control": "max-age=10, stale-while-revalidate=300", "ETag": "\"1\""])
            let pipeline = fixture.makePipeline()
            let events = pipeline.events()
            _ = try await load(pipeline, fixture.url("/feed.png"))
            pipeline.diskCache?.flush()

            let gate = Gate()
            let new = ImageFixtures.png(width: 64, height: 48, seed: 2)
            fixture.server.serve("/feed.png") { _ in
                await gate.wait()
                return .ok(new, contentType: "image/png", headers: ["Cache-Control": "max-age=10, stale-while-revalidate=300", "ETag": "\"2\""])
            }
            fixture.clock.advance(by: 60)
            // Three views appear while the revalidation is held: each shows the old image at once.
            for _ in 0..<3 {
                let response = try await load(pipeline, fixture.url("/feed.png"))
                #expect(response.source == .disk)
                #expect(response.image.data == old)
            }
            #expect(await eventually { fixture.server.requestCount(for: "/feed.png") == 2 })
            gate.open()
            var backgroundRevalidations = 0
            for await event in events {
                if case .revalidatingInBackground = event { backgroundRevalidations += 1 }
                if case .revalidated(_, let notModified) = event {
                    #expect(!notModified)
                    break
                }
            }
            #expect(backgroundRevalidations == 3)
            #expect(fixture.server.requestCount(for: "/feed.png") == 2, "one revalidation for the three views")
            pipeline.diskCache?.flush()
            #expect(try await load(pipeline, fixture.url("/feed.png")).image.data == new)
        }
    }

    @Test("Vary: * and Vary: Cookie are never stored; Vary: Accept is reused while the Accept sent matches")
    func vary() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/star.png", headers: ["Cache-Control": "max-age=600", "Vary": "*"])
            fixture.servePNG("/cookie.png", headers: ["Cache-Control": "max-age=600", "Vary": "Cookie"])
            fixture.servePNG("/accept.png", headers: ["Cache-Control": "max-age=600", "Vary": "Accept"])
            let pipeline = fixture.makePipeline()
            for path in ["/star.png", "/cookie.png", "/accept.png"] {
                #expect(try await load(pipeline, fixture.url(path)).source == .network)
                _ = try await load(pipeline, fixture.url(path))
            }
            #expect(fixture.server.requestCount(for: "/star.png") == 2)
            #expect(fixture.server.requestCount(for: "/cookie.png") == 2)
            #expect(fixture.server.requestCount(for: "/accept.png") == 1)
            #expect(fixture.server.requests(for: "/accept.png").first?.header("Accept") == HTTPRequestDefaults.accept)

            var pngOnly = URLRequest(url: fixture.url("/accept.png"))
            pngOnly.setValue("image/png", forHTTPHeaderField: "Accept")
            #expect(try await pipeline.image(for: ImageRequest(urlRequest: pngOnly, options: .skipMemoryCache)).source == .network)
            #expect(fixture.server.requests(for: "/accept.png").last?.header("Accept") == "image/png")
        }
    }

    @Test("a 304 whose strong ETag names other bytes is not applied: the image is fetched again (RFC 9111 4.3.4)")
    func notModifiedWithOtherValidator() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/v.png", seed: 1, headers: ["Cache-Control": "max-age=10", "ETag": "\"v1\""])
            let pipeline = fixture.makePipeline()
            _ = try await load(pipeline, fixture.url("/v.png"))
            let new = ImageFixtures.png(width: 64, height: 48, seed: 2)
            fixture.server.serve("/v.png") { request in
                if request.header("If-None-Match") != nil {
                    return ScriptedResponse(status: 304, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=10"])
                }
                return .ok(new, contentType: "image/png", headers: ["Cache-Control": "max-age=10", "ETag": "\"v2\""])
            }
            fixture.clock.advance(by: 60)
            let response = try await load(pipeline, fixture.url("/v.png"))
            #expect(response.image.data == new)
            #expect(response.source == .network)
            let requests = fixture.server.requests(for: "/v.png")
            #expect(requests.count == 3)
            #expect(requests.last?.header("If-None-Match") == nil)
        }
    }

    @Test("a 304 that arrives after a reload stored new bytes does not touch the new entry (RFC 9111 4.3.4)")
    func lateNotModifiedLeavesANewerEntryAlone() async throws {
        try await withScriptedFixture { fixture throws in
            let old = ImageFixtures.png(width: 64, height: 48, seed: 1)
            let new = ImageFixtures.png(width: 64, height: 48, seed: 2)
            let held = Gate()
            let fullResponses = Locked(0)
            fixture.server.serve("/avatar.png") { request in
                if request.header("If-None-Match") != nil {
                    // The revalidation: held until the reload has stored the new bytes, then a
                    // 304 confirming the old ones, fresh for an hour.
                    await held.wait()
                    return .ok(old, contentType: "image/png", headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=3600"])
                }
                let number = fullResponses.withLock { $0 += 1; return $0 }
                return number == 1
                    ? .ok(old, contentType: "image/png", headers: ["ETag": "\"v1\"", "Cache-Control": "no-cache"])
                    : .ok(new, contentType: "image/png", headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"])
            }
            let url = fixture.url("/avatar.png")
            let pipeline = fixture.makePipeline()
            let diskCache = try #require(pipeline.diskCache)
            _ = try await pipeline.image(for: url)  // stored, must be revalidated before reuse

            // A view revalidates the stored entry; its 304 is held.
            let revalidation = pipeline.imageTask(with: ImageRequest(url: url))
            #expect(await eventually { fixture.server.requests(for: "/avatar.png").last?.header("If-None-Match") == "\"v1\"" })
            // Meanwhile pull-to-refresh downloads and stores the new bytes.
            let reloaded = try await pipeline.image(for: ImageRequest(url: url, options: .reloadIgnoringLocalCacheData))
            #expect(reloaded.image.data == new)
            diskCache.flush()
            let newEntry = try #require(diskCache.entry(forKey: url.absoluteString))
            #expect(newEntry.data == new)

            held.open()
            // The view gets what the server confirmed to it...
            let confirmed = try await revalidation.response
            #expect(confirmed.source == .revalidated)
            #expect(confirmed.image.data == old)
            // ...but the old 304's ETag and lifetime are not written over the new entry...
            diskCache.flush()
            #expect(diskCache.entry(forKey: url.absoluteString) == newEntry)
            // ...and the next view shows the new image, without asking again.
            let requestsBefore = fixture.server.requestCount(for: "/avatar.png")
            let next = try await pipeline.image(for: url)
            #expect(next.image.data == new)
            #expect(fixture.server.requestCount(for: "/avatar.png") == requestsBefore)
        }
    }

    @Test("the memory cache follows HTTP: no-store and no-cache images are not kept, others leave when they go stale")
    func memoryFollowsHTTP() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/nostore.png", headers: ["Cache-Control": "no-store"])
            fixture.servePNG("/nocache.png", headers: ["Cache-Control": "no-cache", "ETag": "\"n\""])
            fixture.servePNG("/minute.png", headers: ["Cache-Control": "max-age=60", "ETag": "\"m\""])
            let pipeline = fixture.makePipeline()
            for path in ["/nostore.png", "/nocache.png", "/minute.png"] {
                _ = try await pipeline.image(for: fixture.url(path))
            }
            #expect(pipeline.memoryCachedImage(for: ImageRequest(url: fixture.url("/nostore.png"))) == nil)
            #expect(pipeline.memoryCachedImage(for: ImageRequest(url: fixture.url("/nocache.png"))) == nil)
            #expect(pipeline.memoryCachedImage(for: ImageRequest(url: fixture.url("/minute.png"))) != nil)
            #expect(try await pipeline.image(for: fixture.url("/nostore.png")).source == .network)

            fixture.clock.advance(by: 61)
            #expect(pipeline.memoryCachedImage(for: ImageRequest(url: fixture.url("/minute.png"))) == nil)
            #expect(try await pipeline.image(for: fixture.url("/minute.png")).source == .revalidated)
        }
    }
}
