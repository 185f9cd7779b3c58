import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// Pinned images, through the pipeline against a loopback server: what a user sees is an image
/// served from disk without a request after the disk cache was filled past its limit and the
/// app relaunched.
@Suite("Pinned images")
struct PinnedImageTests {
    /// A pipeline whose disk cache holds about three of the served images, pinned aside.
    @available(macOS 14.0, *)
    static func makePipeline(_ fixture: PipelineFixture, pinnedLimit: Int = 1_000_000) -> ImagePipeline {
        fixture.makePipeline {
            $0.diskCacheSizeLimit = 3 * (ImageFixtures.png(width: 64, height: 48, seed: 1).count + 600)
            $0.pinnedDiskCacheSizeLimit = pinnedLimit
        }
    }

    /// Downloads ten other images, each evicting the least recently used entry.
    @available(macOS 14.0, *)
    static func fillDiskCache(_ pipeline: ImagePipeline, _ fixture: PipelineFixture) async throws {
        for index in 0..<10 {
            fixture.servePNG("/filler-\(index).png", seed: UInt64(100 + index), headers: ["Cache-Control": "max-age=600"])
            fixture.clock.advance(by: 1)
            _ = try await pipeline.image(for: ImageRequest(url: fixture.url("/filler-\(index).png"), options: [.skipMemoryCache]))
        }
        pipeline.diskCache?.flush()
    }

    @Test("a pinned own image and a request's .pinOnDisk download survive eviction pressure and a relaunch: served from disk, no new request")
    @available(macOS 14.0, *)
    func surviveEvictionAndRelaunch() async throws {
        let fixture = try await PipelineFixture.start()
        let avatar = ImageFixtures.png(width: 40, height: 40, seed: 7)
        let art = fixture.servePNG("/onboarding.png", seed: 8, headers: ["Cache-Control": "max-age=600"])
        weak var firstCache: DiskCache?
        do {
            let pipeline = Self.makePipeline(fixture)
            firstCache = pipeline.diskCache
            try pipeline.storeImageData(avatar, forKey: "avatar", pinned: true)
            let request = ImageRequest(url: fixture.url("/onboarding.png"), options: [.pinOnDisk, .skipMemoryCache])
            #expect(try await pipeline.image(for: request).source == .network)
            try await Self.fillDiskCache(pipeline, fixture)
            #expect(pipeline.diskCache?.isEntryPinned(forKey: ImagePipeline.customCacheKey("avatar")) == true)
        }

        let relaunched = Self.makePipeline(fixture)
        #expect(relaunched.diskCache != nil && relaunched.diskCache !== firstCache, "the relaunch reuses the first pipeline's disk cache")
        #expect(try await relaunched.image(forKey: "avatar").data == avatar)
        let response = try await relaunched.image(for: fixture.url("/onboarding.png"))
        #expect(response.source == .disk)
        #expect(response.image.data == art)
        #expect(fixture.server.requestCount(for: "/onboarding.png") == 1)
        #expect(!(relaunched.diskCache?.containsEntry(forKey: fixture.url("/filler-0.png").absoluteString) ?? true), "the fillers were evicted")
        await fixture.tearDown()
    }

    @Test("pinning past the pinned budget throws a typed error and changes nothing: the new image is not stored, the pinned one stays")
    @available(macOS 14.0, *)
    func budgetIsEnforced() async throws {
        let fixture = try await PipelineFixture.start()
        let first = ImageFixtures.png(width: 40, height: 40, seed: 1)
        let pipeline = Self.makePipeline(fixture, pinnedLimit: first.count + 600)
        try pipeline.storeImageData(first, forKey: "first", pinned: true)
        #expect {
            try pipeline.storeImageData(ImageFixtures.png(width: 40, height: 40, seed: 2), forKey: "second", pinned: true)
        } throws: { error in
            guard case .pinnedSizeLimitExceeded(let url, let size, let pinnedSize, let limit)? = error as? ImagePipeline.Error else { return false }
            return url == ImagePipeline.customKeyURL("second") && size > 0 && pinnedSize > 0 && limit == first.count + 600
        }
        #expect(!pipeline.containsImage(forKey: "second"))
        try pipeline.storeImageData(ImageFixtures.png(width: 40, height: 40, seed: 3), forKey: "third")
        #expect(throws: ImagePipeline.Error.self) { try pipeline.pinImage(forKey: "third") }
        #expect {
            try pipeline.pinImage(forKey: "missing")
        } throws: { error in
            guard case .notCached(let url)? = error as? ImagePipeline.Error else { return false }
            return url == ImagePipeline.customKeyURL("missing")
        }
        try await Self.fillDiskCache(pipeline, fixture)
        #expect(try await pipeline.image(forKey: "first").data == first)
        #expect(!pipeline.containsImage(forKey: "third"), "refused as pinned, it was evicted like any other")

        // A request asking to be pinned past the budget: delivered and stored, unpinned.
        fixture.servePNG("/art.png", seed: 8, headers: ["Cache-Control": "max-age=600"])
        let response = try await pipeline.image(for: ImageRequest(url: fixture.url("/art.png"), options: [.pinOnDisk]))
        #expect(response.source == .network)
        let key = fixture.url("/art.png").absoluteString
        #expect(pipeline.diskCache?.containsEntry(forKey: key) == true)
        #expect(pipeline.diskCache?.isEntryPinned(forKey: key) == false)
        #expect(try await pipeline.image(forKey: "first").data == first)
        await fixture.tearDown()
    }

    @Test("a downloaded image pinned with pinImage(for:) stays; unpinned, eviction takes it in its turn")
    @available(macOS 14.0, *)
    func pinAndUnpinADownload() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/art.png", seed: 8, headers: ["Cache-Control": "max-age=600"])
        let pipeline = Self.makePipeline(fixture)
        let request = ImageRequest(url: fixture.url("/art.png"))
        _ = try await pipeline.image(for: request)
        try pipeline.pinImage(for: request)
        try await Self.fillDiskCache(pipeline, fixture)
        let key = fixture.url("/art.png").absoluteString
        #expect(pipeline.diskCache?.containsEntry(forKey: key) == true)

        pipeline.unpinImage(for: request)
        try await Self.fillDiskCache(pipeline, fixture)
        #expect(pipeline.diskCache?.containsEntry(forKey: key) == false)
        await fixture.tearDown()
    }
}
