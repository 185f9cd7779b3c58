import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import Testing
@testable import CachedImageCore

/// Who asks and how: keys that never mix users or methods, pull-to-refresh on an image that is
/// on screen, and failures that are not asked for again on every appearance.
@Suite("Pipeline: keys, reloads and remembered failures")
struct PipelineKeyTests {
    private func request(_ url: URL, token: String?, method: String = "GET", cacheKey: String? = nil) -> ImageRequest {
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = method
        if let token { urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return ImageRequest(urlRequest: urlRequest, cacheKey: cacheKey)
    }

    /// Serves a different PNG per `Authorization` value (a 401 without one), after `gate` opens.
    private func servePerUser(_ fixture: ScriptedFixture, _ path: String, gate: Gate? = nil) -> [String: Data] {
        let avatars = ["Bearer alice": ImageFixtures.png(width: 8, height: 8, seed: 1),
                       "Bearer bob": ImageFixtures.png(width: 8, height: 8, seed: 2)]
        fixture.server.serve(path) { request in
            await gate?.wait()
            guard let avatar = request.header("Authorization").flatMap({ avatars[$0] }) else {
                return .status(401)
            }
            return .ok(avatar, contentType: "image/png", headers: ["Cache-Control": "private, max-age=3600"])
        }
        return avatars
    }

    @Test("after an account switch, the new user's request neither joins nor reuses the old user's image")
    func accountSwitch() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            let avatars = servePerUser(fixture, "/me/avatar.png", gate: gate)
            let url = fixture.url("/me/avatar.png")
            let pipeline = fixture.makePipeline()

            // Alice's download is in flight when Bob asks for the same URL.
            let alice = pipeline.imageTask(with: request(url, token: "alice"))
            let bob = pipeline.imageTask(with: request(url, token: "bob"))
            gate.open()
            #expect(try await alice.response.image.data == avatars["Bearer alice"])
            #expect(try await bob.response.image.data == avatars["Bearer bob"])
            #expect(fixture.server.requestCount(for: "/me/avatar.png") == 2)
            #expect(pipeline.statistics.coalescedRequests == 0)

            // Alice's decoded image is in memory; Bob's first frame must not show it.
            #expect(pipeline.memoryCachedImage(for: request(url, token: "alice"))?.data == avatars["Bearer alice"])
            #expect(pipeline.memoryCachedImage(for: request(url, token: "bob"))?.data == avatars["Bearer bob"])
            #expect(pipeline.memoryCachedImage(for: request(url, token: "carol")) == nil)
        }
    }

    @Test("an unauthenticated prefetch that starts first does not hand its 401 to the signed-in view")
    func anonymousPrefetchFirst() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            let avatars = servePerUser(fixture, "/me/avatar.png", gate: gate)
            let url = fixture.url("/me/avatar.png")
            let pipeline = fixture.makePipeline()
            let prefetch = pipeline.imageTask(with: ImageRequest(url: url, priority: .low))
            let view = pipeline.imageTask(with: request(url, token: "alice"))
            gate.open()
            await #expect(throws: ImagePipeline.Error.self) { try await prefetch.response }
            #expect(try await view.response.image.data == avatars["Bearer alice"])
        }
    }

    @Test("POSTs are neither cached nor shared unless the request names a cache key")
    func otherMethods() async throws {
        try await withScriptedFixture { fixture throws in
            let png = fixture.servePNG("/render", headers: ["Cache-Control": "max-age=604800"])
            let url = fixture.url("/render")
            let pipeline = fixture.makePipeline()

            let first = pipeline.imageTask(with: request(url, token: nil, method: "POST"))
            let second = pipeline.imageTask(with: request(url, token: nil, method: "POST"))
            #expect(try await first.response.source == .network)
            #expect(try await second.response.source == .network)
            #expect(try await pipeline.image(for: request(url, token: nil, method: "POST")).source == .network)
            #expect(fixture.server.requestCount(for: "/render") == 3)
            #expect(fixture.server.requests(for: "/render").allSatisfy { $0.method == "POST" })
            pipeline.diskCache?.flush()
            #expect(pipeline.diskCache?.entryCount == 0)

            // With an explicit key the caller vouches that the body does not change the image.
            let keyed = request(url, token: nil, method: "POST", cacheKey: "render-v1")
            #expect(try await pipeline.image(for: keyed).image.data == png)
            #expect(try await pipeline.image(for: keyed).source == .memory)
            #expect(fixture.server.requestCount(for: "/render") == 4)
        }
    }

    @Test("pull-to-refresh revalidates an image that is in memory")
    func reloadRevalidatingBypassesMemory() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/feed.png", headers: ["Cache-Control": "max-age=3600", "ETag": "\"v1\""])
            let url = fixture.url("/feed.png")
            let pipeline = fixture.makePipeline()
            _ = try await pipeline.image(for: url)
            #expect(try await pipeline.image(for: url).source == .memory)

            let refresh = ImageRequest(url: url, options: .reloadRevalidatingCacheData)
            #expect(pipeline.memoryCachedImage(for: refresh) == nil)
            #expect(try await pipeline.image(for: refresh).source == .revalidated)
            let requests = fixture.server.requests(for: "/feed.png")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") == "\"v1\"")
        }
    }

    @Test("a failed image is answered from memory of the failure until its interval passes, or an explicit retry")
    func rememberedFailures() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/gone.png", .status(404))
            let url = fixture.url("/gone.png")
            let pipeline = fixture.makePipeline()

            for _ in 0..<3 {
                await #expect {
                    try await pipeline.image(for: url)
                } throws: { error in
                    guard case .badStatusCode(_, 404)? = error as? ImagePipeline.Error else { return false }
                    return true
                }
            }
            #expect(fixture.server.requestCount(for: "/gone.png") == 1)

            // An explicit retry asks again, and so does any request once the interval has passed.
            _ = try? await pipeline.image(for: ImageRequest(url: url, options: .skipFailureCache))
            #expect(fixture.server.requestCount(for: "/gone.png") == 2)
            fixture.clock.advance(by: FailureCachePolicy.default.notFound + 1)
            let png = fixture.servePNG("/gone.png")
            #expect(try await pipeline.image(for: url).image.data == png)
            #expect(fixture.server.requestCount(for: "/gone.png") == 3)
        }
    }

    @Test("a 503 is remembered for its Retry-After, and removing the image forgets the failure")
    func rememberedServerFailure() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/busy.png", .unavailable(status: 503, retryAfter: "120"))
            let url = fixture.url("/busy.png")
            let pipeline = fixture.makePipeline()
            _ = try? await pipeline.image(for: url)
            fixture.clock.advance(by: 60)
            _ = try? await pipeline.image(for: url)
            #expect(fixture.server.requestCount(for: "/busy.png") == 1)
            fixture.clock.advance(by: 61)
            _ = try? await pipeline.image(for: url)
            #expect(fixture.server.requestCount(for: "/busy.png") == 2)

            pipeline.removeCachedImage(for: ImageRequest(url: url))
            _ = try? await pipeline.image(for: url)
            #expect(fixture.server.requestCount(for: "/busy.png") == 3)

            let forgetful = fixture.makePipeline { $0.failureCachePolicy = .disabled }
            _ = try? await forgetful.image(for: url)
            _ = try? await forgetful.image(for: url)
            #expect(fixture.server.requestCount(for: "/busy.png") == 5)
        }
    }
}
