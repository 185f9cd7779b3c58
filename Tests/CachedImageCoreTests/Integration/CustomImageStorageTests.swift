import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

@Suite("Your own images under your own keys")
struct CustomImageStorageTests {
    @Test("stored bytes come back from memory, and from disk after a relaunch, without the network")
    @available(macOS 14.0, *)
    func roundTripAcrossRelaunch() async throws {
        let fixture = try await PipelineFixture.start()
        let png = ImageFixtures.png(width: 50, height: 40, seed: 3)
        let pipeline = fixture.makePipeline()
        let info = try pipeline.storeImageData(png, forKey: "avatar-42")
        #expect(info == ImageInfo(format: .png, pixelSize: PixelSize(width: 50, height: 40)))
        #expect(try await pipeline.image(forKey: "avatar-42").data == png)
        #expect(pipeline.memoryCachedImage(forKey: "avatar-42") != nil)
        pipeline.diskCache?.flush()

        let relaunched = fixture.makePipeline()
        #expect(relaunched.memoryCachedImage(forKey: "avatar-42") == nil)
        #expect(relaunched.containsImage(forKey: "avatar-42"))
        let image = try await relaunched.image(forKey: "avatar-42", targetSize: CGSize(width: 10, height: 10))
        #expect(image.data == png)
        #expect(relaunched.memoryCachedImage(forKey: "avatar-42", targetSize: CGSize(width: 10, height: 10)) != nil)
        #expect(fixture.server.totalRequestCount == 0)
        await fixture.tearDown()
    }

    @Test("a custom key never collides with a URL's cache key")
    @available(macOS 14.0, *)
    func namespaced() async throws {
        let fixture = try await PipelineFixture.start()
        let served = fixture.servePNG("/a.png", width: 20, height: 20, seed: 1)
        let mine = ImageFixtures.png(width: 30, height: 30, seed: 2)
        let pipeline = fixture.makePipeline()
        try pipeline.storeImageData(mine, forKey: fixture.url("/a.png").absoluteString)
        #expect(try await pipeline.image(for: fixture.url("/a.png")).image.data == served)
        #expect(try await pipeline.image(forKey: fixture.url("/a.png").absoluteString).data == mine)
        await fixture.tearDown()
    }

    @Test("without a disk cache, storing throws a typed error instead of reporting success and keeping nothing")
    func refusesWithoutDiskCache() async throws {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCacheDirectory = nil
        let pipeline = ImagePipeline(configuration: configuration)
        let png = ImageFixtures.png(width: 20, height: 20, seed: 4)
        #expect {
            try pipeline.storeImageData(png, forKey: "avatar")
        } throws: { error in
            guard case .diskCacheUnavailable(let url, let openError)? = error as? ImagePipeline.Error else { return false }
            return url == ImagePipeline.customKeyURL("avatar") && openError == nil
        }
        await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(forKey: "avatar") }
    }

    @Test("bad bytes are refused with a typed error and nothing is stored")
    @available(macOS 14.0, *)
    func refusesBadBytes() async throws {
        let fixture = try await PipelineFixture.start()
        let pipeline = fixture.makePipeline { $0.maximumPixelCount = 1_000 }
        let png = ImageFixtures.png(width: 20, height: 20, seed: 4)
        #expect(throws: ImagePipeline.Error.self) { try pipeline.storeImageData(Data("<html>".utf8), forKey: "k") }
        #expect(throws: ImagePipeline.Error.self) { try pipeline.storeImageData(png.prefix(png.count - 8), forKey: "k") }
        #expect(throws: ImagePipeline.Error.self) { try pipeline.storeImageData(ImageFixtures.png(width: 100, height: 100, seed: 5), forKey: "k") }
        #expect(throws: ImagePipeline.Error.self) { try pipeline.storeImageData(Data(), forKey: "k") }
        pipeline.diskCache?.flush()
        #expect(pipeline.diskCache?.entryCount == 0)
        do {
            _ = try await pipeline.image(forKey: "k")
            Issue.record("expected notCached")
        } catch let error as ImagePipeline.Error {
            guard case .notCached = error else { Issue.record("got \(error)"); return }
        }
        await fixture.tearDown()
    }

    @Test("replacing or removing a key drops the decoded copies, so the new bytes show")
    @available(macOS 14.0, *)
    func replaceAndRemove() async throws {
        let fixture = try await PipelineFixture.start()
        let pipeline = fixture.makePipeline()
        let first = ImageFixtures.png(width: 20, height: 20, seed: 6)
        let second = ImageFixtures.png(width: 24, height: 24, seed: 7)
        let thumb = CGSize(width: 8, height: 8)
        let fit = ImageRequest(key: "k", targetSize: thumb, contentMode: .aspectFit)
        try pipeline.storeImageData(first, forKey: "k")
        #expect(try await pipeline.image(forKey: "k").data == first)
        #expect(try await pipeline.image(forKey: "k", targetSize: thumb).data == first)
        #expect(try await pipeline.image(for: fit).image.data == first)

        // Every decoded copy goes, whatever size or mode it was read at.
        try pipeline.storeImageData(second, forKey: "k")
        #expect(pipeline.memoryCachedImage(for: fit) == nil)
        pipeline.diskCache?.flush()
        #expect(try await pipeline.image(forKey: "k").data == second)
        #expect(try await pipeline.image(forKey: "k", targetSize: thumb).data == second)
        #expect(try await pipeline.image(for: fit).image.data == second)

        pipeline.removeImage(forKey: "k")
        #expect(pipeline.memoryCachedImage(for: fit) == nil)
        pipeline.diskCache?.flush()
        #expect(pipeline.memoryCachedImage(forKey: "k") == nil)
        #expect(!pipeline.containsImage(forKey: "k"))
        await fixture.tearDown()
    }

    @Test("custom entries are never stale, so stale-only cleanups keep them")
    @available(macOS 14.0, *)
    func neverStale() async throws {
        let fixture = try await PipelineFixture.start()
        let pipeline = fixture.makePipeline()
        try pipeline.storeImageData(ImageFixtures.png(width: 8, height: 8, seed: 8), forKey: "k")
        pipeline.diskCache?.flush()
        let entry = try #require(pipeline.diskCache?.entry(forKey: ImagePipeline.customCacheKey("k")))
        #expect(entry.metadata.isImmutable)
        #expect((entry.metadata.freshnessLifetime ?? 0) > 50 * 365 * 24 * 3600)
        await fixture.tearDown()
    }
}
