import Foundation
import ImageFixtures
import Testing
@_spi(Testing) @testable import CachedImageCore

/// The first frame after a relaunch: a small image already on disk is shown by the view's
/// first `phase(for:)`, read and decoded synchronously, with no request.
@Suite("First frame: small disk entries read synchronously", .timeLimit(.minutes(1)))
@MainActor
struct FirstFrameDiskReadTests {
    typealias Seen = PhaseRecorder.Seen
    private let fresh = ["Cache-Control": "max-age=3600"]

    @Test("a new pipeline on a cache holding a small image renders .success from disk in its first phase(for:), with no request")
    func relaunchShowsDiskImageInFirstFrame() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/thumb.png", width: 16, height: 16, headers: fresh)
            let request = ImageRequest(url: fixture.url("/thumb.png"))
            _ = try await fixture.makePipeline().image(for: request)
            #expect(fixture.server.requestCount(for: "/thumb.png") == 1)

            let relaunched = fixture.makePipeline()  // empty memory cache, same directory
            let loader = ImageLoader(pipeline: relaunched)
            let recorder = PhaseRecorder(loader)
            let first = loader.phase(for: request)
            #expect(Seen(first) == .success(path: "/thumb.png", source: .disk))
            #expect(first.response?.image.pixelSize == PixelSize(width: 16, height: 16))
            loader.load(request)  // the view's task, right after the first frame
            #expect(recorder.seen.isEmpty, "the first frame showed the image: nothing to publish")
            #expect(loader.task == nil, "no pipeline task")
            #expect(fixture.server.requestCount(for: "/thumb.png") == 1, "no request")
            #expect(relaunched.memoryCachedImage(for: request) != nil, "kept in memory like any decode")
        }
    }

    @Test("synchronousDiskRead = nil keeps first frames memory-only: .empty, then the disk answers asynchronously")
    func optOut() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/thumb.png", width: 16, height: 16, headers: fresh)
            let request = ImageRequest(url: fixture.url("/thumb.png"))
            _ = try await fixture.makePipeline().image(for: request)
            let relaunched = fixture.makePipeline { $0.synchronousDiskRead = nil }
            #expect(relaunched.firstFrameImage(for: request) == nil)
            let loader = ImageLoader(pipeline: relaunched)
            #expect(Seen(loader.phase(for: request)) == .empty)
        }
    }

    @Test("entries above the size limits and misses stay asynchronous; a stale entry is shown, marked stale")
    func onlySmallFreshEntries() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/thumb.png", width: 16, height: 16, headers: fresh)
            fixture.servePNG("/stale.png", width: 16, height: 16, seed: 2, headers: ["Cache-Control": "max-age=60"])
            let thumb = ImageRequest(url: fixture.url("/thumb.png"))
            let stale = ImageRequest(url: fixture.url("/stale.png"))
            let launch = fixture.makePipeline()
            _ = try await launch.image(for: thumb)
            _ = try await launch.image(for: stale)
            fixture.clock.advance(by: 120)

            var tinyEntries = ImagePipeline.SynchronousDiskRead.default
            tinyEntries.maximumEntryBytes = 16
            #expect(fixture.makePipeline { $0.synchronousDiskRead = tinyEntries }.firstFrameImage(for: thumb) == nil)
            var tinyImages = ImagePipeline.SynchronousDiskRead.default
            tinyImages.maximumDecodedBytes = 16 * 16 * 4 - 1
            #expect(fixture.makePipeline { $0.synchronousDiskRead = tinyImages }.firstFrameImage(for: thumb) == nil)

            let relaunched = fixture.makePipeline()
            let staleFrame = relaunched.firstFrameImage(for: stale)
            #expect(staleFrame?.source == .disk && staleFrame?.isStale == true, "stale: shown, and its view revalidates it")
            #expect(relaunched.firstFrameImage(for: ImageRequest(url: fixture.url("/never.png"))) == nil)
            #expect(relaunched.firstFrameImage(for: thumb)?.source == .disk)
            #expect(relaunched.firstFrameImage(for: thumb)?.source == .memory, "the second look is a memory hit")
            #expect(relaunched.firstFrameImage(for: thumb)?.isStale == false, "fresh")
            #expect(fixture.server.totalRequestCount == 2)
        }
    }

    @Test("the frame budget: reads stop once a frame's time is spent and start again in the next frame")
    func frameBudget() {
        let time = Locked<UInt64>(1_000_000_000)
        let budget = FrameTimeBudget(timePerFrame: 0.004, frameInterval: 0.016, now: { time.withLock { $0 } })
        let first = budget.begin()
        #expect(first != nil)
        time.withLock { $0 += 3_000_000 }   // a 3 ms read
        budget.end(first!)
        let second = budget.begin()
        #expect(second != nil, "3 ms of 4 spent: one more may start")
        time.withLock { $0 += 2_000_000 }
        budget.end(second!)
        #expect(budget.begin() == nil, "5 ms spent: the rest of the frame waits")
        time.withLock { $0 += 16_000_000 }
        #expect(budget.begin() != nil, "a new frame")
    }
}
