import Foundation
import ImageFixtures
import Testing
@_spi(Testing) @testable import CachedImageCore

/// An image on disk is never a placeholder: after a relaunch (a new pipeline on the same
/// directory, an empty memory) a view shows the disk's copy whatever its freshness, in its first
/// frame when it is small, else as soon as it is read, marked stale and revalidated behind it
/// with one conditional request; the image changes only if the server sent other bytes.
@Suite("ImageLoader: across a relaunch, an image on disk is never a placeholder", .timeLimit(.minutes(1)))
@MainActor
struct ImageLoaderRelaunchTests {
    typealias Seen = PhaseRecorder.Seen

    /// The headers the image was stored with.
    enum Stored: String, CaseIterable, Sendable {
        case noCache, maxAgeZero, expired, fresh

        var headers: [String: String] {
            switch self {
            case .noCache: ["Cache-Control": "no-cache", "ETag": "\"v1\""]
            case .maxAgeZero: ["Cache-Control": "max-age=0", "Last-Modified": "Mon, 13 Nov 2023 10:00:00 GMT"]
            case .expired: ["Cache-Control": "max-age=60", "ETag": "\"v1\""]
            case .fresh: ["Cache-Control": "max-age=3600", "ETag": "\"v1\""]
            }
        }

        var isStale: Bool { self != .fresh }
        nonisolated static let stale: [Stored] = [.noCache, .maxAgeZero, .expired]
    }

    /// Small: read in the first frame. Large: above the synchronous read's 64 KB.
    enum Size: String, CaseIterable, Sendable {
        case small, large
        var pixels: (width: Int, height: Int) { self == .small ? (64, 48) : (320, 240) }
    }

    struct View {
        let loader: ImageLoader
        let scheduler: ManualScheduler
        let recorder: PhaseRecorder
        let driver: SwiftUIDriver
        let recovery: FailureRecovery
        let failures: Recorder<String>
    }

    /// Stores `/a.png` with `stored`'s headers in one launch, then returns a view over a new
    /// pipeline on the same directory (the relaunch), not yet rendered. The server's counters
    /// start at zero there.
    static func relaunchedView(_ fixture: ScriptedFixture, _ stored: Stored, _ size: Size) async throws -> View {
        let png = fixture.servePNG("/a.png", width: size.pixels.width, height: size.pixels.height, headers: stored.headers)
        #expect((png.count > 64 * 1024) == (size == .large), "the large image is above the synchronous read's limit")
        let request = ImageRequest(url: fixture.url("/a.png"))
        let launch = fixture.makePipeline()
        _ = try await launch.image(for: request)
        launch.diskCache?.flush() // the last launch's files are written before the next one starts
        if stored == .expired { fixture.clock.advance(by: 120) }
        fixture.server.resetCounters()

        let scheduler = ManualScheduler(clock: fixture.clock)
        let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: scheduler)
        let recovery = FailureRecovery()
        loader.failureRecovery = recovery
        let failures = Recorder<String>()
        loader.callbacks.onFailure = { failures.append(String(describing: $0)) }
        return View(
            loader: loader, scheduler: scheduler, recorder: PhaseRecorder(loader),
            driver: SwiftUIDriver(loader: loader, request: request), recovery: recovery, failures: failures
        )
    }

    /// The conditional requests the server received for `/a.png`.
    static func conditionalRequests(_ fixture: ScriptedFixture) -> Int {
        fixture.server.requests(for: "/a.png").filter { $0.header("If-None-Match") != nil || $0.header("If-Modified-Since") != nil }.count
    }

    @Test("a small image on disk is in the first frame after a relaunch, whatever its freshness; a stale one is revalidated once behind it", arguments: Stored.allCases)
    func smallImageInFirstFrame(stored: Stored) async throws {
        try await withScriptedFixture { fixture throws in
            let view = try await Self.relaunchedView(fixture, stored, .small)
            let first = view.driver.render()
            #expect(Seen(first) == .success(path: "/a.png", source: .disk), "the first frame shows the image")
            #expect(first.response?.isStale == stored.isStale)
            view.driver.appear()
            await view.loader.settle()
            view.scheduler.endTurn()

            #expect(!view.recorder.seen.contains { $0 == .empty || $0.isLoading }, "never a placeholder: \(view.recorder.seen)")
            #expect(!view.recorder.seen.contains { $0 == .success(path: "/a.png", source: .network) }, "a 304: the same picture")
            #expect(view.loader.phase.response?.isStale == false, "confirmed")
            #expect(view.loader.phase.error == nil)
            #expect(view.loader.phase.response?.image.pixelSize == PixelSize(width: 64, height: 48))
            #expect(fixture.server.requestCount(for: "/a.png") == (stored.isStale ? 1 : 0))
            #expect(Self.conditionalRequests(fixture) == (stored.isStale ? 1 : 0), "exactly one conditional request")
        }
    }

    @Test("a large image on disk is shown as soon as it is read, before the 304, and revalidated by the same request", arguments: Stored.allCases)
    func largeImageShownBeforeRevalidation(stored: Stored) async throws {
        try await withScriptedFixture { fixture throws in
            let view = try await Self.relaunchedView(fixture, stored, .large)
            // The server answers only once the gate opens: what shows before is the disk's.
            let gate = Gate()
            let headers = stored.headers
            let image = ImageFixtures.png(width: 320, height: 240, seed: 1)
            fixture.server.serve("/a.png") { _ in
                await gate.wait()
                return .ok(image, contentType: "image/png", headers: headers)
            }
            #expect(Seen(view.driver.render()) == .empty, "too large to read in the frame")
            view.driver.appear()
            await view.recorder.wait { $0.successPath != nil }
            #expect(view.recorder.seen.last == .success(path: "/a.png", source: .disk))
            #expect(view.loader.phase.response?.isStale == stored.isStale)
            #expect(view.loader.isRevalidating == stored.isStale, "the load goes on as the revalidation")

            gate.open()
            await view.loader.settle()
            #expect(view.loader.phase.response?.isStale == false)
            #expect(view.loader.phase.response?.image.pixelSize == PixelSize(width: 320, height: 240))
            #expect(!view.recorder.seen.dropFirst(2).contains { $0 == .empty || $0.isLoading }, "no placeholder after the image: \(view.recorder.seen)")
            #expect(Self.conditionalRequests(fixture) == (stored.isStale ? 1 : 0))
            #expect(fixture.server.requestCount(for: "/a.png") == (stored.isStale ? 1 : 0))
        }
    }

    @Test("other bytes from the server replace the stale image, never through a placeholder", arguments: Size.allCases)
    func changedImageReplacesStaleOne(size: Size) async throws {
        try await withScriptedFixture { fixture throws in
            let view = try await Self.relaunchedView(fixture, .noCache, size)
            fixture.servePNG("/a.png", width: 32, height: 32, seed: 9, headers: ["Cache-Control": "no-cache", "ETag": "\"v2\""])
            // A small one is in the first frame (rendered, not published); a large one is
            // published as soon as it is read.
            let first = view.driver.render()
            #expect(Seen(first) == (size == .small ? .success(path: "/a.png", source: .disk) : .empty))
            view.driver.appear()
            await view.loader.settle()
            let successes = view.recorder.seen.filter { $0.successPath != nil }
            let shown: [Seen] = size == .small ? [] : [.success(path: "/a.png", source: .disk)]
            #expect(successes == shown + [.success(path: "/a.png", source: .network)], "\(view.recorder.seen)")
            #expect(!view.recorder.seen.drop { $0.successPath == nil }.contains { $0 == .empty || $0.isLoading })
            #expect(view.loader.phase.response?.image.pixelSize == PixelSize(width: 32, height: 32))
            #expect(view.loader.phase.response?.isStale == false)
        }
    }

    @Test("a view resized while its stale image is revalidated sends one conditional request for both sizes, and none for a later size")
    func oneConditionalRequestAcrossSizes() async throws {
        try await withScriptedFixture { fixture throws in
            let view = try await Self.relaunchedView(fixture, .noCache, .small)
            var unsized = view.driver.request
            view.driver.appear() // body (the stale image, revalidated behind it), onAppear, task
            // The layout pass gives a size: body and task run again with the sized request.
            unsized.targetPixelSize = PixelSize(width: 32, height: 24)
            let sized = SwiftUIDriver(loader: view.loader, request: unsized)
            #expect(Seen(sized.render()) == .success(path: "/a.png", source: .disk))
            view.loader.load(sized.request)
            await view.loader.settle()
            #expect(Self.conditionalRequests(fixture) == 1)
            #expect(view.loader.phase.response?.isStale == false)

            // Another size in the same appearance: shown from the disk, not asked again.
            var larger = sized.request
            larger.targetPixelSize = PixelSize(width: 48, height: 36)
            let resized = SwiftUIDriver(loader: view.loader, request: larger)
            #expect(Seen(resized.render()) == .success(path: "/a.png", source: .disk))
            view.loader.load(larger)
            view.scheduler.endTurn()
            await view.loader.settle()
            #expect(Self.conditionalRequests(fixture) == 1, "revalidated once per appearance")
            #expect(view.loader.phase.response?.isStale == false)
            #expect(view.loader.phase.response?.image.pixelSize == PixelSize(width: 48, height: 36))
        }
    }
}
