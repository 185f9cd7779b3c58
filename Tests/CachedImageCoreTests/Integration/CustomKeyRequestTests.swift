import Foundation
import ImageFixtures
import Testing
@_spi(Testing) @testable import CachedImageCore

/// `ImageRequest(key:)`, behind `CachedAsyncImage(key:)`: what `storeImageData(_:forKey:)`
/// stored, through the same loading path as a URL, never from the network.
@Suite("Requests for the app's own images", .timeLimit(.minutes(1)))
@MainActor
struct CustomKeyRequestTests {
    @Test("a key request finds the stored image in memory, and on disk after a relaunch, with no request on the network",
          arguments: ["avatar-42", "user 7/avatar?size=large", "Zoë's #1 photo"])
    func findsStoredImage(key: String) async throws {
        try await withScriptedFixture { fixture in
            let png = ImageFixtures.png(width: 50, height: 40, seed: 3)
            let pipeline = fixture.makePipeline()
            try pipeline.storeImageData(png, forKey: key)
            #expect(try await pipeline.image(for: ImageRequest(key: key)).image.data == png)
            #expect(pipeline.memoryCachedImage(for: ImageRequest(key: key)) != nil, "the memory entry image(forKey:) uses")
            #expect(pipeline.memoryCachedImage(forKey: key) != nil)
            pipeline.diskCache?.flush()

            let relaunched = fixture.makePipeline()
            let response = try await relaunched.image(for: ImageRequest(key: key, targetSize: CGSize(width: 10, height: 10)))
            #expect(response.image.data == png)
            #expect(response.source == .disk)
            #expect(relaunched.memoryCachedImage(forKey: key, targetSize: CGSize(width: 10, height: 10)) != nil)
            #expect(fixture.server.totalRequestCount == 0)
        }
    }

    @Test("a missing key fails as not cached, never asks the network, whatever the options and allowed schemes")
    func missingKeyFails() async throws {
        try await withScriptedFixture { fixture in
            let pipeline = fixture.makePipeline { $0.allowedSchemes = ["https"] }
            for options: ImageRequest.Options in [[], [.reloadIgnoringLocalCacheData], [.reloadRevalidatingCacheData], [.skipFailureCache]] {
                do {
                    _ = try await pipeline.image(for: ImageRequest(key: "nobody", options: options))
                    Issue.record("expected notCached for \(options)")
                } catch let error as ImagePipeline.Error {
                    guard case .notCached(let url) = error else { Issue.record("got \(error)"); continue }
                    #expect(url == ImagePipeline.customKeyURL("nobody"))
                }
            }
            #expect(fixture.server.totalRequestCount == 0)
            try pipeline.storeImageData(ImageFixtures.png(width: 8, height: 8, seed: 1), forKey: "somebody")
            #expect(try await pipeline.image(for: ImageRequest(key: "somebody")).image.pixelSize == PixelSize(width: 8, height: 8))
        }
    }

    @Test("a cachedimage-key: URL that did not come from ImageRequest(key:) (a server's data) is refused, never read from the caches")
    func foreignKeyURLIsRefused() async throws {
        try await withScriptedFixture { fixture in
            let pipeline = fixture.makePipeline()
            try pipeline.storeImageData(ImageFixtures.png(width: 8, height: 8, seed: 2), forKey: "private")
            let foreign = ImageRequest(url: URL(string: "cachedimage-key:private"))
            #expect(foreign.cacheKey != ImagePipeline.customCacheKey("private"))
            await #expect {
                _ = try await pipeline.image(for: foreign)
            } throws: { error in
                guard case .invalidURL? = error as? ImagePipeline.Error else { return false }
                return true
            }
            #expect(pipeline.memoryCachedImage(for: foreign) == nil)
            #expect(try await pipeline.image(for: ImageRequest(key: "private")).image.pixelSize == PixelSize(width: 8, height: 8))
            // In memory now: still not for the foreign request.
            #expect(pipeline.memoryCachedImage(for: foreign) == nil)
            #expect(pipeline.memoryCachedImage(for: ImageRequest(key: "private")) != nil)
        }
    }

    @Test("header fields a subtree's defaults add (an Authorization among them) do not change the key")
    func headerDefaultsKeepTheKey() async throws {
        try await withScriptedFixture { fixture in
            let png = ImageFixtures.png(width: 12, height: 12, seed: 6)
            let pipeline = fixture.makePipeline()
            try pipeline.storeImageData(png, forKey: "banner")
            var defaults = ImageRequestDefaults()
            defaults.headerFields = ["Authorization": "Bearer abc", "Cache-Control": "no-cache"]
            let request = defaults.applied(to: ImageRequest(key: "banner"))
            #expect(request.urlRequest.value(forHTTPHeaderField: "Authorization") == "Bearer abc")
            #expect(try await pipeline.image(for: request).image.data == png)
            #expect(fixture.server.totalRequestCount == 0)
        }
    }

    @Test("a view of a stored key shows it in its first frame; after a relaunch, from disk with no placeholder step")
    func viewShowsStoredImage() async throws {
        try await withScriptedFixture { fixture in
            let png = ImageFixtures.png(width: 40, height: 40, seed: 5)
            let pipeline = fixture.makePipeline()
            try pipeline.storeImageData(png, forKey: "avatar")
            _ = try await pipeline.image(for: ImageRequest(key: "avatar"))
            let loader = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            let view = SwiftUIDriver(loader: loader, request: ImageRequest(key: "avatar"))
            #expect(view.render().response?.source == .memory, "the first body shows the memory copy")
            pipeline.diskCache?.flush()

            // A relaunch: a small image is read from disk in the first body (the first frame).
            let relaunchedLoader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: ManualScheduler(clock: fixture.clock))
            let relaunched = SwiftUIDriver(loader: relaunchedLoader, request: ImageRequest(key: "avatar"))
            #expect(relaunched.render().response?.image.data == png)
            relaunched.appear()
            #expect(relaunchedLoader.phase.response != nil)
            #expect(fixture.server.totalRequestCount == 0)
        }
    }

    @Test("a view of a key not stored yet fails once (its placeholder) and shows the image after a retry once stored")
    func viewRetriesAfterStore() async throws {
        try await withScriptedFixture { fixture in
            let pipeline = fixture.makePipeline()
            let loader = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            let recorder = PhaseRecorder(loader)
            let view = SwiftUIDriver(loader: loader, request: ImageRequest(key: "later"))
            view.appear()
            await recorder.wait { $0.isFailure }
            for swap in 0..<4 { view.branchSwap(animated: swap.isMultiple(of: 2)) }
            #expect(recorder.seen.filter(\.isFailure).count == 1, "branch swaps never reload a failure")

            try pipeline.storeImageData(ImageFixtures.png(width: 16, height: 16, seed: 9), forKey: "later")
            loader.retry()
            await recorder.wait { $0.successPath != nil }
            #expect(fixture.server.totalRequestCount == 0)
        }
    }
}
