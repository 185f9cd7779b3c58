import Foundation
import Testing
@testable import CachedImageCore

@Suite("ImagePrefetcher")
struct ImagePrefetcherTests {
    @Test("prefetching warms the disk cache without decoding into memory")
    func warmsDisk() async throws {
        try await withScriptedFixture { fixture throws in
            let requests = (0..<10).map { index -> ImageRequest in
                fixture.servePNG("/\(index).png", seed: UInt64(index))
                return ImageRequest(url: fixture.url("/\(index).png"))
            }
            let pipeline = fixture.makePipeline()
            let prefetcher = ImagePrefetcher(pipeline: pipeline)
            prefetcher.startPrefetching(with: requests + requests)
            await prefetcher.waitUntilFinished()

            #expect(fixture.server.totalRequestCount == 10)
            #expect(pipeline.diskCache?.entryCount == 10)
            #expect(pipeline.memoryCache?.count == 0)
            for request in requests {
                #expect(try await pipeline.image(for: request).source == .disk)
            }
            #expect(fixture.server.totalRequestCount == 10)
        }
    }

    @Test("the first images are ready in memory when the call returns; the rest follow in the background")
    func firstNowRestLater() async throws {
        try await withScriptedFixture { fixture throws in
            let requests = (0..<12).map { index -> ImageRequest in
                fixture.servePNG("/\(index).png", seed: UInt64(index))
                return ImageRequest(url: fixture.url("/\(index).png"))
            }
            let pipeline = fixture.makePipeline { $0.maximumConcurrentDownloads = 2 }
            let prefetcher = ImagePrefetcher(pipeline: pipeline)

            let first = await prefetcher.prefetch(requests, waitingForFirst: 3)
            #expect(first.count == 3)
            for (request, result) in zip(requests, first) {
                #expect((try? result.get())?.request.url == request.url)
                #expect(pipeline.memoryCachedImage(for: request) != nil)
            }
            // The first three had the network to themselves: nothing else was requested yet.
            let firstPaths = Set(fixture.server.allRequests.prefix(3).map(\.path))
            #expect(firstPaths == ["/0.png", "/1.png", "/2.png"])
            #expect(fixture.server.allRequests.count >= 3)

            await prefetcher.waitUntilFinished()
            #expect(fixture.server.totalRequestCount == 12)
            #expect(pipeline.diskCache?.entryCount == 12)
        }
    }

    @Test("a disk prefetch stopped right after a view asks for the same image keeps its download for the view: one download, every time")
    func diskPrefetchHandsItsDownloadToAView() async throws {
        try await withScriptedFixture { fixture throws in
            let pipeline = fixture.makePipeline()
            let prefetcher = ImagePrefetcher(pipeline: pipeline) // .diskCache: it joins only the download
            // The view's image job joins the download in a task of its own; before that, the
            // stop left the download with nobody and cancelled it (about 1 run in 3).
            for row in 0..<20 {
                let path = "/row-\(row).png"
                let gate = Gate()
                fixture.serveHeldPNG(path, until: gate)
                let request = ImageRequest(url: fixture.url(path))
                prefetcher.startPrefetching(with: [request])
                #expect(await eventually { fixture.server.requestCount(for: path) == 1 })
                let view = pipeline.imageTask(with: request)
                prefetcher.stopPrefetching(with: [request])
                gate.open()
                // From the download it joined, or, when its task runs only after that download
                // finished, from the disk cache the download filled: either way, one download.
                #expect([.network, .disk].contains(try await view.response.source))
                #expect(fixture.server.requestCount(for: path) == 1, "row \(row) was downloaded twice")
            }
        }
    }

    @Test("a prefetch and a live request for the same image share one download; stopping the prefetch keeps the live one")
    func dedupsWithLiveRequests() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/shared.png", until: gate)
            let pipeline = fixture.makePipeline()
            let request = ImageRequest(url: fixture.url("/shared.png"))
            let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .memoryCache)
            prefetcher.startPrefetching(with: [request])
            #expect(await eventually { fixture.server.requestCount(for: "/shared.png") == 1 })
            let live = pipeline.imageTask(with: request)
            prefetcher.stopPrefetching()
            gate.open()
            let response = try await live.response
            #expect(response.source == .network)
            #expect(fixture.server.requestCount(for: "/shared.png") == 1)
        }
    }
}
