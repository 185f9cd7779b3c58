import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

@Suite("Reliability: private responses stay off disk, keys cannot escape, only allowed schemes load")
struct SecurityTests {
    @available(macOS 14.0, *)
    private func authorizedRequest(_ url: URL) -> ImageRequest {
        var urlRequest = URLRequest(url: url)
        urlRequest.setValue("Bearer secret-token", forHTTPHeaderField: "Authorization")
        return ImageRequest(urlRequest: urlRequest)
    }

    @Test("a response to a request with Authorization is not written to disk by default")
    @available(macOS 14.0, *)
    func authorizedResponsesStayOffDisk() async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/private.png", headers: ["Cache-Control": "max-age=3600"])
        let url = fixture.url("/private.png")
        #expect(ImagePipeline.Configuration().storesAuthorizedResponsesOnDisk == false)

        let pipeline = fixture.makePipeline()
        let response = try await pipeline.image(for: authorizedRequest(url))
        #expect(response.image.data == png)
        #expect(fixture.server.requests(for: "/private.png").first?.header("Authorization") == "Bearer secret-token")
        ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: nil)
        // Still served from memory in this session.
        #expect(pipeline.memoryCachedImage(for: authorizedRequest(url))?.data == png)

        // A relaunch (another user, perhaps) finds nothing on disk and must ask the server.
        let relaunched = fixture.makePipeline()
        #expect(try await relaunched.image(for: authorizedRequest(url)).source == .network)
        #expect(fixture.server.requestCount(for: "/private.png") == 2)
        await fixture.tearDown()
    }

    @Test("an authorized request never reads the shared entry, and leaves it to anonymous requests")
    @available(macOS 14.0, *)
    func authorizedRequestIgnoresSharedEntry() async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/a.png")
        let url = fixture.url("/a.png")
        let pipeline = fixture.makePipeline()
        _ = try await pipeline.image(for: url)
        ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: png)
        // The private request is keyed by its identity: neither the shared memory image nor the
        // shared disk entry answers it, and it does not overwrite them.
        #expect(try await pipeline.image(for: authorizedRequest(url)).source == .network)
        #expect(fixture.server.requestCount(for: "/a.png") == 2)
        ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: png)
        await fixture.tearDown()
    }

    @Test("apps that opt in store authorized responses on disk, under a key that hashes the credentials")
    @available(macOS 14.0, *)
    func optInStoresAuthorizedResponses() async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/private.png")
        let url = fixture.url("/private.png")
        let pipeline = fixture.makePipeline { $0.storesAuthorizedResponsesOnDisk = true }
        _ = try await pipeline.image(for: authorizedRequest(url))
        pipeline.diskCache?.flush()
        let entries = pipeline.diskCache?.allEntries() ?? []
        #expect(entries.count == 1)
        let key = try #require(entries.first?.key)
        #expect(key.hasPrefix(url.absoluteString) && key != url.absoluteString)
        #expect(!key.contains("secret-token"))
        ReliabilityChecks.expectDisk(of: pipeline, key: key, holds: png)
        // A relaunch serves it from disk to the same user, and not to anyone else.
        let relaunched = fixture.makePipeline { $0.storesAuthorizedResponsesOnDisk = true }
        #expect(try await relaunched.image(for: authorizedRequest(url)).source == .disk)
        #expect(try await relaunched.image(for: url).source == .network)
        await fixture.tearDown()
    }

    @Test("hostile cache keys never create anything outside the cache directory")
    @available(macOS 14.0, *)
    func hostileKeysStayInside() async throws {
        let fixture = try await PipelineFixture.start()
        let cacheDirectory = fixture.directory.appendingPathComponent("cache", isDirectory: true)
        let keys = [
            "../../../../tmp/escaped",
            "../escaped",
            "/etc/passwd",
            "a\u{0}b/../../escaped",
            "\u{0}",
            String(repeating: "../", count: 3_334),
            String(repeating: "k", count: 10_000),
            "..",
            ".",
            "tmp",
        ]
        var bodies: [String: Data] = [:]
        for (index, key) in keys.enumerated() {
            bodies[key] = fixture.servePNG("/\(index).png", seed: UInt64(index + 1))
        }
        let pipeline = fixture.makePipeline { $0.diskCacheDirectory = cacheDirectory }
        for (index, key) in keys.enumerated() {
            let response = try await pipeline.image(for: ImageRequest(url: fixture.url("/\(index).png"), cacheKey: key))
            #expect(response.image.data == bodies[key])
        }
        pipeline.diskCache?.flush()

        // The fixture's directory holds only the cache directory, which holds only hashed
        // entry files, the temporary directory and the index snapshot's directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path) == ["cache"])
        let names = try FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path)
        #expect(names.filter { $0 != "tmp" && $0 != "index" }.allSatisfy(KeyHasher.isFileName))
        #expect(names.filter(KeyHasher.isFileName).count == keys.count)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/escaped"))

        // A relaunch reads every entry back under its own key, from disk.
        let relaunched = fixture.makePipeline { $0.diskCacheDirectory = cacheDirectory }
        for (index, key) in keys.enumerated() {
            let response = try await relaunched.image(for: ImageRequest(url: fixture.url("/\(index).png"), cacheKey: key))
            #expect(response.source == .disk)
            #expect(response.image.data == bodies[key])
        }
        await fixture.tearDown()
    }

    @Test("file URLs are refused unless allowed; allowed ones load")
    @available(macOS 14.0, *)
    func fileSchemeOnlyWhenAllowed() async throws {
        let fixture = try await PipelineFixture.start()
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        let png = ImageFixtures.png(width: 12, height: 9, seed: 8)
        let file = fixture.directory.appendingPathComponent("local.png")
        try png.write(to: file)

        let strict = fixture.makePipeline {
            $0.allowedSchemes = ["https"]
            $0.diskCacheDirectory = fixture.directory.appendingPathComponent("cache")
        }
        for url in [file, fixture.url("/a.png")] {
            await #expect {
                try await strict.image(for: url)
            } throws: { error in
                guard case .invalidURL(let refused) = error as? ImagePipeline.Error else { return false }
                return refused == url
            }
        }
        #expect(fixture.server.totalRequestCount == 0)

        let permissive = fixture.makePipeline { $0.diskCacheDirectory = fixture.directory.appendingPathComponent("cache") }
        #expect(try await permissive.image(for: file).image.data == png)
        await fixture.tearDown()
    }
}
