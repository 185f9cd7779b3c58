import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import Testing
@testable import CachedImageCore

@Suite("Animation: one fetch per animated image", .timeLimit(.minutes(1)))
struct AnimatedImageFetchTests {
    private let gif = ImageFixtures.animatedGIF(width: 8, height: 8, delays: [10, 10, 10], loopCount: 0)

    /// The ways a request keeps its bytes off the disk, and the plain case.
    enum Case: String, CaseIterable, Sendable {
        case plain, authorization, noStore, skipDiskCache
    }

    @Test("one view = one request, including Authorization, no-store and .skipDiskCache requests; the bytes that play are the bytes that were decoded", arguments: Case.allCases)
    @MainActor
    func oneRequestPerView(_ kind: Case) async throws {
        try await withScriptedFixture { fixture in
            let headers = kind == .noStore ? ["Cache-Control": "no-store"] : ["Cache-Control": "max-age=3600"]
            fixture.server.serve("/a.gif", .ok(gif, contentType: "image/gif", headers: headers))
            var request = ImageRequest(url: fixture.url("/a.gif"))
            switch kind {
            case .authorization:
                var urlRequest = URLRequest(url: fixture.url("/a.gif"))
                urlRequest.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
                request = ImageRequest(urlRequest: urlRequest)
            case .skipDiskCache:
                request.options.insert(.skipDiskCache)
            case .plain, .noStore:
                break
            }
            let decoder = CountingDecoder()
            let pipeline = fixture.makePipeline { $0.decoder = decoder }

            let response = try await pipeline.animatedImage(for: request)
            #expect(fixture.server.requestCount(for: "/a.gif") == 1)
            #expect(response.data == gif)
            #expect(response.image.image.data == response.data) // the decoded bytes (header decoder keeps them)
            #expect(response.animation?.frameCount == 3)
            #expect(decoder.decodeCount == 1)

            // A player (what a view runs) on a fresh pipeline: one request too.
            fixture.server.resetCounters()
            let fresh = fixture.makePipeline { $0.memoryCacheCostLimit = 0 }
            if kind == .plain { fresh.removeAllCachedImages() }
            let clock = ManualUptimeClock()
            let factory = FakeSourceFactory()
            let player = AnimationPlayer<FakeFrameSource>(clock: clock, makeSource: { factory.make($0, $1) })
            player.setVisible(true)
            player.load(request, pipeline: fresh)
            await clock.waitForSleepers(1)
            #expect(fixture.server.requestCount(for: "/a.gif") == 1)
            #expect(player.displayedFrame == 0)
        }
    }

    @Test("a still image is read once: no bytes returned, one decode; shown again, memory answers without reading it")
    func stillImageReadOnce() async throws {
        try await withScriptedFixture { fixture in
            let png = fixture.servePNG("/still.png", headers: ["Cache-Control": "max-age=3600"])
            let decoder = CountingDecoder()
            let pipeline = fixture.makePipeline { $0.decoder = decoder }
            let request = ImageRequest(url: fixture.url("/still.png"))

            let first = try await pipeline.animatedImage(for: request)
            #expect(first.data == nil && first.animation == nil)
            #expect(first.image.image.data == png)
            #expect(first.image.source == .network)
            #expect(decoder.decodeCount == 1)

            let again = try await pipeline.animatedImage(for: request)
            #expect(again.image.source == .memory)
            #expect(again.data == nil)
            #expect(pipeline.statistics.diskHits == 0)
            #expect(fixture.server.requestCount(for: "/still.png") == 1)
            #expect(decoder.decodeCount == 1)

            // Relaunch: the disk is read once, and decoded once.
            pipeline.diskCache?.flush()
            let relaunched = fixture.makePipeline { $0.decoder = decoder }
            let fromDisk = try await relaunched.animatedImage(for: request)
            #expect(fromDisk.image.source == .disk)
            #expect(relaunched.statistics.diskHits == 1)
            #expect(decoder.decodeCount == 2)
        }
    }

    @Test("an animation shown again comes from memory with its bytes; a request with processors gets its processed still image")
    func animationFromMemory() async throws {
        try await withScriptedFixture { fixture in
            fixture.server.serve("/a.gif", .ok(gif, contentType: "image/gif", headers: ["Cache-Control": "max-age=3600"]))
            let pipeline = fixture.makePipeline()
            let request = ImageRequest(url: fixture.url("/a.gif"))
            _ = try await pipeline.animatedImage(for: request)
            let again = try await pipeline.animatedImage(for: request)
            #expect(again.image.source == .memory)
            #expect(again.data == gif)
            #expect(pipeline.statistics.diskHits == 0)
            #expect(fixture.server.requestCount(for: "/a.gif") == 1)

            var processed = request
            processed.processors = [ImageProcessors.Custom(id: "identity") { $0 }]
            let still = try await pipeline.animatedImage(for: processed)
            #expect(still.data == nil)
            #expect(fixture.server.requestCount(for: "/a.gif") == 1)
        }
    }
}
