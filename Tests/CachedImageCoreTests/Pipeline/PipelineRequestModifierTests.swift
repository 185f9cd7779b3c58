import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import Testing
@testable import CachedImageCore

/// `Configuration.requestModifier` (credentials added before each network request) and
/// `ImageRequestDefaults.headerFields` (headers for a subtree, part of the request as given).
@Suite("Pipeline: request modifier and default header fields")
struct PipelineRequestModifierTests {
    struct TokenUnavailable: Error, Equatable {}

    /// A modifier that signs every request with the current token, or throws without one.
    static func bearer(_ token: Locked<String?>) -> @Sendable (URLRequest) async throws -> URLRequest {
        { request in
            guard let current = token.withLock({ $0 }) else { throw TokenUnavailable() }
            var request = request
            request.setValue("Bearer \(current)", forHTTPHeaderField: "Authorization")
            return request
        }
    }

    @Test("the modifier's header reaches the server; memory and disk hits never call it")
    func headerReachesTheServer() async throws {
        try await withScriptedFixture { fixture throws in
            let png = fixture.servePNG("/a.png", headers: ["Cache-Control": "max-age=600"])
            let calls = Locked(0)
            let token = Locked<String?>("t1")
            let sign = Self.bearer(token)
            let configure: (inout ImagePipeline.Configuration) -> Void = { configuration in
                configuration.requestModifier = { request in
                    calls.withLock { $0 += 1 }
                    return try await sign(request)
                }
            }
            let pipeline = fixture.makePipeline(configure)
            #expect(try await pipeline.image(for: fixture.url("/a.png")).source == .network)
            #expect(fixture.server.requests(for: "/a.png").map { $0.header("Authorization") } == ["Bearer t1"])
            #expect(try await pipeline.image(for: fixture.url("/a.png")).source == .memory)
            pipeline.diskCache?.flush()
            // A relaunch: a disk hit, no request, no call.
            let relaunched = fixture.makePipeline(configure)
            #expect(try await relaunched.image(for: fixture.url("/a.png")).source == .disk)
            #expect(calls.withLock { $0 } == 1)
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
            #expect(relaunched.diskCache?.entry(forKey: fixture.url("/a.png").absoluteString)?.data == png)
        }
    }

    @Test("a throwing modifier fails the load with a typed error: nothing sent, stored or remembered")
    func throwingModifierFailsTheLoad() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", headers: ["Cache-Control": "max-age=600"])
            let token = Locked<String?>(nil)
            let pipeline = fixture.makePipeline { $0.requestModifier = Self.bearer(token) }
            let url = fixture.url("/a.png")
            await #expect {
                _ = try await pipeline.image(for: url)
            } throws: { error in
                guard case .requestModifierFailed(let failedURL, let underlying)? = error as? ImagePipeline.Error else { return false }
                return failedURL == url && underlying is TokenUnavailable
            }
            #expect(fixture.server.totalRequestCount == 0)
            pipeline.diskCache?.flush()
            #expect(pipeline.diskCache?.entryCount == 0)
            #expect(pipeline.memoryCachedImage(for: ImageRequest(url: url)) == nil)
            // Not a server's answer, so not remembered: once a token exists, the next load goes out.
            token.withLock { $0 = "t1" }
            #expect(try await pipeline.image(for: url).source == .network)
            #expect(fixture.server.requests(for: "/a.png").map { $0.header("Authorization") } == ["Bearer t1"])
        }
    }

    @Test("a 401, then the app refreshes its token and retries: the retry carries the new token")
    func refreshAfterUnauthorized() async throws {
        try await withScriptedFixture { fixture throws in
            let png = ImageFixtures.png(width: 16, height: 16, seed: 4)
            fixture.server.serve("/private.png") { request in
                request.header("Authorization") == "Bearer fresh"
                    ? .ok(png, contentType: "image/png", headers: ["Cache-Control": "max-age=600"])
                    : .status(401, headers: ["Content-Type": "text/plain"])
            }
            let token = Locked<String?>("expired")
            let pipeline = fixture.makePipeline { $0.requestModifier = Self.bearer(token) }
            let url = fixture.url("/private.png")
            await #expect {
                _ = try await pipeline.image(for: url)
            } throws: { error in
                guard case .badStatusCode(_, 401)? = error as? ImagePipeline.Error else { return false }
                return true
            }
            token.withLock { $0 = "fresh" }
            var retry = ImageRequest(url: url)
            retry.options.insert(.skipFailureCache) // what ImageLoader.retry() sends
            let response = try await pipeline.image(for: retry)
            #expect(response.source == .network)
            #expect(fixture.server.requests(for: "/private.png").map { $0.header("Authorization") } == ["Bearer expired", "Bearer fresh"])
        }
    }

    @Test("what the modifier adds does not key the cache: a refreshed token still hits the image loaded with the old one")
    func modifierHeadersDoNotChangeTheKey() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", headers: ["Cache-Control": "max-age=600"])
            let token = Locked<String?>("t1")
            let pipeline = fixture.makePipeline { $0.requestModifier = Self.bearer(token) }
            _ = try await pipeline.image(for: fixture.url("/a.png"))
            pipeline.diskCache?.flush()
            token.withLock { $0 = "t2" }
            let relaunched = fixture.makePipeline { $0.requestModifier = Self.bearer(token) }
            #expect(try await relaunched.image(for: fixture.url("/a.png")).source == .disk)
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("default header fields are sent, and those named in identityHeaderFields key memory and disk per value")
    func defaultHeaderFieldsKeyTheCache() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/avatar.png") { request in
                let seed: UInt64 = request.header("X-User") == "alice" ? 1 : 2
                return .ok(ImageFixtures.png(width: 16, height: 16, seed: seed), contentType: "image/png", headers: ["Cache-Control": "max-age=600"])
            }
            let pipeline = fixture.makePipeline { $0.identityHeaderFields = ["Authorization", "X-User"] }
            func request(as user: String) -> ImageRequest {
                var defaults = ImageRequestDefaults()
                defaults.headerFields = ["X-User": user, "X-App-Version": "2.1"]
                return defaults.applied(to: ImageRequest(url: fixture.url("/avatar.png")))
            }
            #expect(try await pipeline.image(for: request(as: "alice")).source == .network)
            #expect(try await pipeline.image(for: request(as: "bob")).source == .network)
            #expect(try await pipeline.image(for: request(as: "alice")).source == .memory)
            // Each user's bytes under their own key on disk.
            #expect(try await pipeline.data(for: request(as: "alice")).data == ImageFixtures.png(width: 16, height: 16, seed: 1))
            #expect(try await pipeline.data(for: request(as: "bob")).data == ImageFixtures.png(width: 16, height: 16, seed: 2))
            let sent = fixture.server.requests(for: "/avatar.png")
            #expect(sent.map { $0.header("X-User") } == ["alice", "bob"])
            #expect(sent.allSatisfy { $0.header("X-App-Version") == "2.1" })
            pipeline.diskCache?.flush()
            #expect(pipeline.diskCache?.entryCount == 2)
        }
    }
}
