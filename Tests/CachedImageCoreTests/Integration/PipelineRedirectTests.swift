import Foundation
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

/// Redirects through a real URLSession: what is stored under the requested URL is limited by
/// every hop on the way (RFC 9111 4.2.2, RFC 9110 15.4).
@Suite("Pipeline: redirects against the loopback server")
struct PipelineRedirectTests {
    private func load(_ pipeline: ImagePipeline, _ url: URL) async throws -> ImageResponse {
        try await pipeline.image(for: ImageRequest(url: url, options: .skipMemoryCache))
    }

    @Test("a temporary redirect to an immutable CDN file does not make the avatar URL fresh for a year")
    @available(macOS 14.0, *)
    func temporaryRedirectIsNotReusedWithoutAsking() async throws {
        let fixture = try await PipelineFixture.start()
        let old = fixture.servePNG("/cdn/abc.png", seed: 1, headers: ["Cache-Control": "max-age=31536000, immutable", "ETag": "\"abc\""])
        let new = fixture.servePNG("/cdn/def.png", seed: 2, headers: ["Cache-Control": "max-age=31536000, immutable", "ETag": "\"def\""])
        fixture.server.serve("/users/42/picture", .redirect(to: "/cdn/abc.png"))
        let pipeline = fixture.makePipeline()
        let avatar = fixture.url("/users/42/picture")
        #expect(try await load(pipeline, avatar).image.data == old)
        pipeline.diskCache?.flush()
        let stored = try #require(pipeline.diskCache?.entry(forKey: avatar.absoluteString))
        #expect(stored.metadata.freshnessLifetime == 0)
        #expect(!stored.metadata.isImmutable)

        // The user changes their picture: the next appearance asks the avatar URL and shows it.
        fixture.server.serve("/users/42/picture", .redirect(to: "/cdn/def.png"))
        #expect(try await load(pipeline, avatar).image.data == new)
        #expect(fixture.server.requestCount(for: "/users/42/picture") == 2)
        await fixture.tearDown()
    }

    @Test("a 304 through the temporary redirect keeps the avatar URL stale: the next appearance asks again")
    @available(macOS 14.0, *)
    func notModifiedThroughTemporaryRedirectStaysStale() async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/cdn/abc.png", seed: 1, headers: ["Cache-Control": "max-age=31536000, immutable", "ETag": "\"abc\""])
        fixture.server.serve("/users/42/picture", .redirect(to: "/cdn/abc.png"))
        let pipeline = fixture.makePipeline()
        let avatar = fixture.url("/users/42/picture")
        #expect(try await load(pipeline, avatar).image.data == png)
        // Stale at once: asked again, conditionally; the CDN answers 304 through the redirect.
        let revalidated = try await load(pipeline, avatar)
        #expect(revalidated.source == .revalidated)
        #expect(fixture.server.requests(for: "/cdn/abc.png").last?.header("If-None-Match") == "\"abc\"")
        pipeline.diskCache?.flush()
        let stored = try #require(pipeline.diskCache?.entry(forKey: avatar.absoluteString))
        #expect(stored.metadata.freshnessLifetime == 0, "the 304 must not make the avatar URL fresh for a year")
        #expect(!stored.metadata.isImmutable)
        _ = try await load(pipeline, avatar)
        #expect(fixture.server.requestCount(for: "/users/42/picture") == 3)
        await fixture.tearDown()
    }

    @Test("a permanent redirect to an immutable file is reused from disk")
    @available(macOS 14.0, *)
    func permanentRedirectKeepsTheTargetsFreshness() async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/cdn/v2/logo.png", headers: ["Cache-Control": "max-age=86400", "ETag": "\"l\""])
        fixture.server.serve("/logo.png", .redirect(to: "/cdn/v2/logo.png", status: 301))
        let pipeline = fixture.makePipeline()
        #expect(try await load(pipeline, fixture.url("/logo.png")).image.data == png)
        let again = try await load(pipeline, fixture.url("/logo.png"))
        #expect(again.source == .disk)
        #expect(fixture.server.requestCount(for: "/logo.png") == 1)
        await fixture.tearDown()
    }
}
