import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

/// Encodes like a real encoder would on Linux: a real PNG of the image's (processed) size, whose
/// pixels depend on the image's bytes, so tests can tell which original a derived entry came from.
private final class TestEncoder: ImageEncoding {
    private let calls = Locked(0)
    var encodeCount: Int { calls.withLock { $0 } }

    func encode(_ image: DecodedImage) throws -> Data {
        calls.withLock { $0 += 1 }
        return Self.encoded(image)
    }

    static func encoded(_ image: DecodedImage) -> Data {
        let seed = (image.data ?? Data()).reduce(UInt64(1469598103934665603)) { ($0 ^ UInt64($1)) &* 1099511628211 }
        return ImageFixtures.png(width: image.pixelSize.width, height: image.pixelSize.height, seed: seed)
    }
}

/// Counts processing passes, and tags the bytes so results are distinguishable.
private final class CountingProcessor: ImageProcessing {
    private let runs = Locked(0)
    var runCount: Int { runs.withLock { $0 } }
    var identifier: String { "test.counting" }

    func process(_ image: DecodedImage) throws -> DecodedImage {
        runs.withLock { $0 += 1 }
        var image = image
        image.data = (image.data ?? Data()) + Data("processed".utf8)
        return image
    }
}

extension ImagePipeline {
    /// Loads, then waits for the disk cache's writes: what the next "launch" finds on disk.
    fileprivate func imageFlushed(for request: ImageRequest) async throws -> ImageResponse {
        let response = try await image(for: request)
        diskCache?.flush()
        return response
    }
}

@Suite("Processing: processed images on disk (DiskCachePolicy)")
struct DiskCachePolicyTests {
    private let thumbnail = PixelSize(width: 40, height: 40)

    @available(macOS 14.0, *)
    private func launch(
        _ fixture: PipelineFixture,
        policy: ImagePipeline.DiskCachePolicy,
        encoder: TestEncoder = TestEncoder(),
        decoder: CountingDecoder = CountingDecoder()
    ) -> ImagePipeline {
        fixture.makePipeline {
            $0.diskCachePolicy = policy
            $0.encoder = encoder
            $0.decoder = decoder
        }
    }

    @Test("replacing or removing an image stored under a key drops its processed copies on disk: a relaunch shows the new bytes")
    @available(macOS 14.0, *)
    func replacedKeyDropsProcessedCopies() async throws {
        let fixture = try await PipelineFixture.start()
        let old = ImageFixtures.png(width: 400, height: 300, seed: 1)
        let new = ImageFixtures.png(width: 400, height: 300, seed: 2)
        let request = ImageRequest(key: "hero", targetSize: CGSize(width: thumbnail.width, height: thumbnail.height), contentMode: .aspectFit)
        let pipeline = launch(fixture, policy: .processed)
        try pipeline.storeImageData(old, forKey: "hero")
        let first = try await pipeline.imageFlushed(for: request)
        let relaunched = launch(fixture, policy: .processed)
        #expect(try await relaunched.imageFlushed(for: request).image.data == TestEncoder.encoded(first.image), "the processed copy")

        try relaunched.storeImageData(new, forKey: "hero")
        relaunched.diskCache?.flush()
        let replaced = try await launch(fixture, policy: .processed).imageFlushed(for: request)
        #expect(replaced.image.data == new, "decoded from the new original, not the old processed copy")

        let third = launch(fixture, policy: .processed)
        #expect(try await third.imageFlushed(for: request).image.data == TestEncoder.encoded(replaced.image))
        third.removeImage(forKey: "hero")
        third.diskCache?.flush()
        await #expect(throws: ImagePipeline.Error.self) { try await launch(fixture, policy: .processed).image(for: request) }
        await fixture.tearDown()
    }

    @Test("an HDR decode is never kept as a processed copy (encoders write SDR): a relaunch decodes the original again")
    @available(macOS 14.0, *)
    func hdrIsNotDerived() async throws {
        let fixture = try await PipelineFixture.start()
        let original = fixture.servePNG("/big.png", width: 400, height: 300, headers: ["Cache-Control": "max-age=3600"])
        let hdr = ImageRequest(url: fixture.url("/big.png"), targetPixelSize: thumbnail, contentMode: .aspectFit, options: [.decodeToHDR])
        let encoder = TestEncoder()
        _ = try await launch(fixture, policy: .processed, encoder: encoder).imageFlushed(for: hdr)
        #expect(encoder.encodeCount == 0)
        let relaunched = try await launch(fixture, policy: .processed, encoder: encoder).imageFlushed(for: hdr)
        #expect(relaunched.source == .disk)
        #expect(relaunched.image.data == original, "decoded from the original")
        // The SDR decode of the same size is kept as one.
        var sdr = hdr
        sdr.options.remove(.decodeToHDR)
        _ = try await launch(fixture, policy: .processed, encoder: encoder).imageFlushed(for: sdr)
        #expect(encoder.encodeCount == 1)
        await fixture.tearDown()
    }

    @Test("with .processed, a relaunch decodes the small processed version, never the original, and runs no processor")
    @available(macOS 14.0, *)
    func processedRelaunch() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/big.png", width: 400, height: 300, headers: ["Cache-Control": "max-age=3600"])
        let processor = CountingProcessor()
        let request = ImageRequest(url: fixture.url("/big.png"), targetPixelSize: thumbnail, contentMode: .aspectFit, processors: [processor])

        let first = try await launch(fixture, policy: .processed).imageFlushed(for: request)
        #expect(first.source == .network)
        #expect(first.image.pixelSize == PixelSize(width: 40, height: 30))
        #expect(processor.runCount == 1)

        let decoder = CountingDecoder()
        let relaunched = launch(fixture, policy: .processed, decoder: decoder)
        let second = try await relaunched.imageFlushed(for: request)
        #expect(second.source == .disk)
        #expect(second.image.data == TestEncoder.encoded(first.image))
        #expect(second.image.pixelSize == PixelSize(width: 40, height: 30))
        #expect(processor.runCount == 1)
        #expect(decoder.targetSizes == [nil]) // One decode: the derived bytes, already small.
        #expect(fixture.server.requestCount(for: "/big.png") == 1)
        // Other sizes still come from the original, which is kept.
        let other = try await relaunched.imageFlushed(for: ImageRequest(url: fixture.url("/big.png"), targetPixelSize: PixelSize(width: 100, height: 100)))
        #expect(other.source == .disk && other.image.pixelSize == PixelSize(width: 133, height: 100), "fill, the default")
        await fixture.tearDown()
    }

    @Test("a first frame reads a processed image on disk synchronously only within the synchronous-read limits")
    @available(macOS 14.0, *)
    func processedFirstFrameWithinLimits() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/big.png", width: 400, height: 300, headers: ["Cache-Control": "max-age=3600"])
        let request = ImageRequest(url: fixture.url("/big.png"), targetPixelSize: thumbnail, contentMode: .aspectFit, processors: [CountingProcessor()])
        _ = try await launch(fixture, policy: .processed).imageFlushed(for: request)

        let relaunched = launch(fixture, policy: .processed)
        let first = relaunched.firstFrameImage(for: request)
        #expect(first?.source == .disk && first?.image.pixelSize == PixelSize(width: 40, height: 30))

        // 40x30 decodes to 4,800 bytes: over these limits it is left to the asynchronous load.
        for limits in [(entryBytes: 64 * 1024, decodedBytes: 4_000), (entryBytes: 16, decodedBytes: 1024 * 1024)] {
            let limited = fixture.makePipeline {
                $0.diskCachePolicy = .processed
                $0.encoder = TestEncoder()
                $0.synchronousDiskRead = ImagePipeline.SynchronousDiskRead(maximumEntryBytes: limits.entryBytes, maximumDecodedBytes: limits.decodedBytes)
            }
            #expect(limited.firstFrameImage(for: request) == nil, "limits \(limits)")
            #expect(try await limited.image(for: request).source == .disk)
        }
        #expect(fixture.server.requestCount(for: "/big.png") == 1)
        await fixture.tearDown()
    }

    @Test("with .original (the default), a relaunch decodes and processes the original again")
    @available(macOS 14.0, *)
    func originalRelaunch() async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/big.png", width: 400, height: 300, headers: ["Cache-Control": "max-age=3600"])
        let processor = CountingProcessor()
        let encoder = TestEncoder()
        let request = ImageRequest(url: fixture.url("/big.png"), targetPixelSize: thumbnail, processors: [processor])
        _ = try await launch(fixture, policy: .original, encoder: encoder).imageFlushed(for: request)
        let second = try await launch(fixture, policy: .original, encoder: encoder).imageFlushed(for: request)
        #expect(second.source == .disk)
        #expect(second.image.data == png + Data("processed".utf8))
        #expect(processor.runCount == 2)
        #expect(encoder.encodeCount == 0)
        await fixture.tearDown()
    }

    @Test(".automatic keeps the processed result only when it is much smaller than the original")
    @available(macOS 14.0, *)
    func automatic() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/big.png", width: 400, height: 300, headers: ["Cache-Control": "max-age=3600"])
        fixture.servePNG("/small.png", width: 40, height: 30, headers: ["Cache-Control": "max-age=3600"])
        let processor = CountingProcessor()
        let big = ImageRequest(url: fixture.url("/big.png"), targetPixelSize: thumbnail, processors: [processor])
        let small = ImageRequest(url: fixture.url("/small.png"), targetPixelSize: thumbnail, processors: [processor])
        let pipeline = launch(fixture, policy: .automatic)
        _ = try await pipeline.imageFlushed(for: big)
        _ = try await pipeline.imageFlushed(for: small)
        #expect(processor.runCount == 2)

        let relaunched = launch(fixture, policy: .automatic)
        _ = try await relaunched.imageFlushed(for: big)
        #expect(processor.runCount == 2) // Derived entry: 40x30 instead of 400x300.
        _ = try await relaunched.imageFlushed(for: small)
        #expect(processor.runCount == 3) // Not smaller: the original was kept alone.
        await fixture.tearDown()
    }

    @Test("a request's own policy overrides the pipeline's, both ways")
    @available(macOS 14.0, *)
    func perRequestPolicy() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/a.png", width: 400, height: 300, headers: ["Cache-Control": "max-age=3600"])
        fixture.servePNG("/b.png", width: 400, height: 300, headers: ["Cache-Control": "max-age=3600"])
        let processor = CountingProcessor()
        var keep = ImageRequest(url: fixture.url("/a.png"), targetPixelSize: thumbnail, processors: [processor])
        keep.diskCachePolicy = .processed
        var skip = ImageRequest(url: fixture.url("/b.png"), targetPixelSize: thumbnail, processors: [processor])
        skip.diskCachePolicy = .original
        _ = try await launch(fixture, policy: .original).imageFlushed(for: keep)
        _ = try await launch(fixture, policy: .processed).imageFlushed(for: skip)
        #expect(processor.runCount == 2)

        _ = try await launch(fixture, policy: .original).imageFlushed(for: keep)
        #expect(processor.runCount == 2) // Its derived entry was kept.
        _ = try await launch(fixture, policy: .processed).imageFlushed(for: skip)
        #expect(processor.runCount == 3) // Originals only, as it asked.
        await fixture.tearDown()
    }

    @Test("a derived entry follows the original's freshness: stale means revalidate the original; a 304 makes it fresh again")
    @available(macOS 14.0, *)
    func freshnessFollowsOriginal() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/big.png", width: 400, height: 300, headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        let processor = CountingProcessor()
        let request = ImageRequest(url: fixture.url("/big.png"), targetPixelSize: thumbnail, processors: [processor])
        _ = try await launch(fixture, policy: .processed).imageFlushed(for: request)

        fixture.clock.advance(by: 120)
        let stale = try await launch(fixture, policy: .processed).imageFlushed(for: request)
        #expect(stale.source == .revalidated)
        #expect(fixture.server.requestCount(for: "/big.png") == 2)
        #expect(processor.runCount == 2)

        // Fresh again after the 304: the next launch uses the derived entry, no network.
        let fresh = try await launch(fixture, policy: .processed).imageFlushed(for: request)
        #expect(fresh.source == .disk)
        #expect(processor.runCount == 2)
        #expect(fixture.server.requestCount(for: "/big.png") == 2)
        await fixture.tearDown()
    }

    @Test("offline, a stale derived entry follows its original: served when the original may be, refused (notCached) under must-revalidate")
    @available(macOS 14.0, *)
    func offlineFollowsOriginal() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/free.png", width: 400, height: 300, headers: ["Cache-Control": "max-age=60"])
        fixture.servePNG("/strict.png", width: 400, height: 300, headers: ["Cache-Control": "max-age=60, must-revalidate"])
        func thumbnailRequest(_ path: String, offline: Bool) -> ImageRequest {
            ImageRequest(url: fixture.url(path), targetPixelSize: thumbnail, options: offline ? .returnCacheDataDontLoad : [])
        }
        let pipeline = launch(fixture, policy: .processed)
        _ = try await pipeline.imageFlushed(for: thumbnailRequest("/free.png", offline: false))
        _ = try await pipeline.imageFlushed(for: thumbnailRequest("/strict.png", offline: false))
        fixture.clock.advance(by: 120)

        let relaunched = launch(fixture, policy: .processed)
        #expect(try await relaunched.image(for: thumbnailRequest("/free.png", offline: true)).source == .disk)
        await #expect {
            _ = try await relaunched.image(for: thumbnailRequest("/strict.png", offline: true))
        } throws: { error in
            if case .notCached? = error as? ImagePipeline.Error { true } else { false }
        }
        #expect(fixture.server.requestCount(for: "/strict.png") == 1)
        await fixture.tearDown()
    }

    @Test("a derived entry is not served to a request its original's Vary does not match")
    @available(macOS 14.0, *)
    func derivedEntryFollowsVary() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/v.png", width: 400, height: 300, headers: ["Cache-Control": "max-age=3600", "Vary": "Accept"])
        func thumbnailRequest(accepting accept: String) -> ImageRequest {
            var urlRequest = URLRequest(url: fixture.url("/v.png"))
            urlRequest.setValue(accept, forHTTPHeaderField: "Accept")
            // Memory skipped: the memory cache is not keyed by Vary yet; this is the disk path.
            var request = ImageRequest(urlRequest: urlRequest, options: .skipMemoryCache)
            request.targetPixelSize = thumbnail
            return request
        }
        _ = try await launch(fixture, policy: .processed).imageFlushed(for: thumbnailRequest(accepting: "image/png"))
        let relaunched = launch(fixture, policy: .processed)
        #expect(try await relaunched.image(for: thumbnailRequest(accepting: "image/png")).source == .disk)
        #expect(try await relaunched.image(for: thumbnailRequest(accepting: "image/webp")).source == .network)
        #expect(fixture.server.requestCount(for: "/v.png") == 2)
        await fixture.tearDown()
    }

    @Test("new original bytes from a revalidation invalidate derived entries of every size and processing")
    @available(macOS 14.0, *)
    func revalidationInvalidates() async throws {
        let fixture = try await PipelineFixture.start()
        let v1 = ImageFixtures.png(width: 400, height: 300, seed: 1)
        let v2 = ImageFixtures.png(width: 400, height: 300, seed: 2)
        let current = Locked((data: v1, etag: "\"v1\""))
        fixture.server.serve("/big.png") { request in
            let (data, etag) = current.withLock { ($0.data, $0.etag) }
            if request.header("If-None-Match") == etag { return .status(304, headers: ["ETag": etag, "Cache-Control": "max-age=3600"]) }
            return .ok(data, contentType: "image/png", headers: ["ETag": etag, "Cache-Control": "max-age=3600"])
        }
        let processor = CountingProcessor()
        let url = fixture.url("/big.png")
        let thumb = ImageRequest(url: url, targetPixelSize: thumbnail, processors: [processor])
        let pipeline = launch(fixture, policy: .processed)
        let old = try await pipeline.imageFlushed(for: thumb)

        // Pull-to-refresh on the full-size image; the server has new bytes.
        current.withLock { $0 = (v2, "\"v2\"") }
        let refreshed = try await pipeline.imageFlushed(for: ImageRequest(url: url, options: .reloadRevalidatingCacheData))
        #expect(refreshed.image.data == v2)

        // After a relaunch the thumbnail must come from v2, not the derived entry of v1.
        let relaunched = launch(fixture, policy: .processed)
        let thumbnailAfter = try await relaunched.imageFlushed(for: thumb)
        #expect(thumbnailAfter.image.data != old.image.data)
        #expect(thumbnailAfter.image.data == v2 + Data("processed".utf8))
        #expect(fixture.server.requestCount(for: "/big.png") == 2)
        await fixture.tearDown()
    }

    @Test("removing an image removes its derived entries; no-store originals get none")
    @available(macOS 14.0, *)
    func removalAndNoStore() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/big.png", width: 400, height: 300, headers: ["Cache-Control": "max-age=3600"])
        fixture.servePNG("/private.png", width: 400, height: 300, headers: ["Cache-Control": "no-store"])
        let processor = CountingProcessor()
        let request = ImageRequest(url: fixture.url("/big.png"), targetPixelSize: thumbnail, processors: [processor])
        let pipeline = launch(fixture, policy: .processed)
        _ = try await pipeline.imageFlushed(for: request)
        pipeline.removeCachedImage(for: request)
        pipeline.diskCache?.flush()
        let again = try await launch(fixture, policy: .processed).imageFlushed(for: request)
        #expect(again.source == .network)

        let encoder = TestEncoder()
        let privatePipeline = launch(fixture, policy: .processed, encoder: encoder)
        _ = try await privatePipeline.imageFlushed(for: ImageRequest(url: fixture.url("/private.png"), targetPixelSize: thumbnail))
        privatePipeline.diskCache?.flush()
        #expect(privatePipeline.diskCache?.allEntries().contains { $0.key.hasPrefix(fixture.url("/private.png").absoluteString) } == false)
        await fixture.tearDown()
    }
}
