import Foundation
import Testing
@_spi(Testing) @testable import CachedImageCore

/// An image once shown is shown again at once (HTML's list of available images): whatever its
/// freshness, a view that returns after its grace period shows it from its `onAppear` (which
/// completes before the first frame is drawn; a `body` rendered while still off screen takes
/// nothing back) and revalidates behind it; no placeholder in between; `no-store` is never
/// kept; `ImagePipeline.image(for:)` keeps its RFC 9111 answers.
@Suite("ImageLoader: an image once shown is shown again at once", .timeLimit(.minutes(1)))
@MainActor
struct ImageLoaderAvailableImagesTests {
    typealias Seen = PhaseRecorder.Seen

    enum Freshness: String, CaseIterable, Sendable {
        case noCache, maxAgeZero, expiredWhileAway
        var cacheControl: String {
            switch self {
            case .noCache: "no-cache"
            case .maxAgeZero: "max-age=0"
            case .expiredWhileAway: "max-age=60"
            }
        }
    }

    private struct Setup {
        let loader: ImageLoader
        let scheduler: ManualScheduler
        let recorder: PhaseRecorder
        let view: SwiftUIDriver
    }

    /// A view that showed `/a.png` (served with `headers`), then left the screen past its grace
    /// period (and `away` more seconds): its image was let go.
    private func viewThatLeft(_ fixture: ScriptedFixture, headers: [String: String], away: TimeInterval = 0) async -> Setup {
        let setup = await viewShowing(fixture, headers: headers)
        setup.loader.didDisappear()
        setup.scheduler.advance(by: 0.6 + away)
        return setup
    }

    /// A view on screen showing `/a.png`, served with `headers`.
    private func viewShowing(_ fixture: ScriptedFixture, headers: [String: String]) async -> Setup {
        fixture.servePNG("/a.png", headers: headers)
        let scheduler = ManualScheduler(clock: fixture.clock)
        let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: scheduler)
        let recorder = PhaseRecorder(loader)
        let view = SwiftUIDriver(loader: loader, request: ImageRequest(url: fixture.url("/a.png")))
        view.appear()
        await recorder.wait { $0.successPath == "/a.png" }
        return Setup(loader: loader, scheduler: scheduler, recorder: recorder, view: view)
    }

    @Test("a no-cache, max-age=0 or expired image returns on appearance, marked stale, and is revalidated behind it", arguments: Freshness.allCases)
    func staleImageReturnsAtOnce(freshness: Freshness) async throws {
        try await withScriptedFixture { fixture throws in
            let setup = await viewThatLeft(
                fixture, headers: ["Cache-Control": freshness.cacheControl, "ETag": "\"v1\""],
                away: freshness == .expiredWhileAway ? 120 : 0
            )
            #expect(Seen(setup.loader.phase) == .empty, "let go off screen")
            let before = setup.recorder.seen.count

            #expect(Seen(setup.view.render()) == .empty, "a body before onAppear: still off screen")
            setup.view.appear()
            #expect(setup.recorder.seen.dropFirst(before).first == .success(path: "/a.png", source: .memory), "\(setup.recorder.seen)")
            #expect(setup.loader.phase.response?.isStale == true, "shown before the server confirmed it")
            #expect(setup.loader.isRevalidating)
            await setup.loader.settle()

            #expect(!setup.recorder.seen.dropFirst(before).contains { $0 == .empty || $0.isLoading }, "no placeholder: \(setup.recorder.seen)")
            #expect(Seen(setup.loader.phase) == .success(path: "/a.png", source: .memory), "a 304: the same picture, not swapped")
            #expect(setup.loader.phase.response?.isStale == false, "confirmed by the 304")
            #expect(setup.loader.phase.error == nil)
            let requests = fixture.server.requests(for: "/a.png")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") == "\"v1\"", "revalidated as the headers require")

            // The display rule is above the HTTP cache: the pipeline itself answers by RFC 9111
            // (no-cache and max-age=0 revalidate every time; max-age=60 is fresh after the 304).
            let response = try await setup.loader.pipeline.image(for: setup.view.request)
            #expect(response.source == (freshness == .expiredWhileAway ? .memory : .revalidated))
        }
    }

    @Test("an image that changed on the server replaces the shown one, without a placeholder in between")
    func changedImageSwaps() async throws {
        try await withScriptedFixture { fixture throws in
            let setup = await viewThatLeft(fixture, headers: ["Cache-Control": "no-cache", "ETag": "\"v1\""])
            fixture.servePNG("/a.png", width: 32, height: 32, seed: 9, headers: ["Cache-Control": "no-cache", "ETag": "\"v2\""])
            let before = setup.recorder.seen.count
            setup.view.appear()
            await setup.loader.settle()
            #expect(
                setup.recorder.seen.dropFirst(before).elementsEqual([.success(path: "/a.png", source: .memory), .success(path: "/a.png", source: .network)]),
                "the kept image, then the new one: \(setup.recorder.seen)"
            )
            #expect(setup.loader.phase.response?.image.pixelSize == PixelSize(width: 32, height: 32))
        }
    }

    @Test("a failed revalidation (offline) keeps the image on screen")
    func failedRevalidationKeepsImage() async throws {
        try await withScriptedFixture { fixture throws in
            let setup = await viewThatLeft(fixture, headers: ["Cache-Control": "no-cache", "ETag": "\"v1\""])
            fixture.server.serve("/a.png", .transportFailure())
            setup.view.appear()
            await setup.loader.settle()
            #expect(Seen(setup.loader.phase) == .success(path: "/a.png", source: .memory))
            #expect(!setup.loader.isRevalidating)
        }
    }

    @Test("no-store is never kept: the view loads it again")
    func noStoreIsNeverKept() async throws {
        try await withScriptedFixture { fixture throws in
            let setup = await viewThatLeft(fixture, headers: ["Cache-Control": "no-store"])
            #expect(Seen(setup.view.render()) == .empty)
            setup.view.appear()
            await setup.recorder.wait(from: setup.recorder.seen.count - 1) { $0 == .success(path: "/a.png", source: .network) }
            #expect(fixture.server.requestCount(for: "/a.png") == 2)
            #expect(setup.loader.pipeline.shownImage(for: setup.view.request) == nil)
        }
    }

    @Test("a fresh memory hit comes back from onAppear after a return, with no loading step and no request")
    func memoryHitInFirstBody() async throws {
        try await withScriptedFixture { fixture throws in
            let setup = await viewThatLeft(fixture, headers: ["Cache-Control": "max-age=3600"])
            let before = setup.recorder.seen.count
            setup.view.appear()
            #expect(Array(setup.recorder.seen.dropFirst(before)) == [.success(path: "/a.png", source: .memory)])
            await setup.loader.settle()
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("a UIKit cell configured again with an image it showed shows it at once and revalidates behind it")
    func imageViewShowsKeptImage() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", headers: ["Cache-Control": "no-cache", "ETag": "\"v1\""])
            let controller = ImageViewLoadingController(pipeline: fixture.makePipeline(), scheduler: ManualScheduler(clock: fixture.clock))
            let recorder = ImageViewLoadingControllerTests.Recorder(controller)
            let request = ImageRequest(url: fixture.url("/a.png"))
            controller.setRequest(request)
            try await recorder.wait { $0.last == .image(path: "/a.png", animated: true) }
            controller.prepareForReuse()
            controller.setRequest(request)
            #expect(recorder.shown.suffix(2) == [.placeholder, .image(path: "/a.png", animated: false)])
            await controller.loader.settle()
            #expect(recorder.shown.last == .image(path: "/a.png", animated: false))
            #expect(fixture.server.requestCount(for: "/a.png") == 2)
        }
    }

    @Test("an image the memory cache keeps until an expiry is copied for display only once its view lets go of it")
    func copiedWhenReleased() async throws {
        try await withScriptedFixture { fixture throws in
            let setup = await viewShowing(fixture, headers: ["Cache-Control": "max-age=60"])
            let pipeline = setup.loader.pipeline
            #expect(pipeline.shownImage(for: setup.view.request) == nil, "on screen and fresh in memory: held once")
            setup.loader.didDisappear()
            setup.scheduler.advance(by: 0.6)
            #expect(pipeline.shownImage(for: setup.view.request) != nil, "let go: kept for display")
        }
    }

    @Test("removing the cached image removes the copy kept for display")
    func removalRemovesKeptCopy() async throws {
        try await withScriptedFixture { fixture throws in
            let setup = await viewThatLeft(fixture, headers: ["Cache-Control": "no-cache"])
            #expect(setup.loader.pipeline.shownImage(for: setup.view.request) != nil)
            setup.loader.pipeline.removeCachedImage(for: setup.view.request)
            #expect(setup.loader.pipeline.shownImage(for: setup.view.request) == nil)
            #expect(Seen(setup.view.render()) == .empty)
        }
    }
    @Test("a fresh view's first body, before its layout gives it a size, shows the image at the size a view last showed it; then its own")
    func firstBodyBeforeLayoutShowsShownSize() async throws {
        try await withScriptedFixture { fixture throws in
            // Large (no synchronous disk read): only memory can fill the first frame.
            fixture.servePNG("/a.png", width: 320, height: 240, headers: ["Cache-Control": "max-age=3600"])
            let pipeline = fixture.makePipeline()
            let unsized = ImageRequest(url: fixture.url("/a.png"))
            var sized = unsized
            sized.targetPixelSize = PixelSize(width: 32, height: 24)
            let grid = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            let gridRecorder = PhaseRecorder(grid)
            SwiftUIDriver(loader: grid, request: sized).appear()
            await gridRecorder.wait { $0.successPath != nil }

            // A pushed screen's view, new: its first body has no layout size yet.
            let loader = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            let view = SwiftUIDriver(loader: loader, request: unsized)
            #expect(Seen(view.render()) == .empty, "its own request misses")
            #expect(loader.previousResponse(for: unsized)?.image.pixelSize == PixelSize(width: 32, height: 24), "the shown size fills the first frame")

            // onAppear before the layout pass (the order SwiftUI does not promise either way):
            // the unsized load runs with the image still on screen; then the sized body hits memory.
            view.appear()
            #expect(loader.phase.isLoading)
            #expect(loader.previousResponse(for: unsized) != nil, "no placeholder while it loads")
            let laidOut = SwiftUIDriver(loader: loader, request: sized)
            #expect(Seen(laidOut.render()) == .success(path: "/a.png", source: .memory))
            await loader.settle()
            #expect(fixture.server.requestCount(for: "/a.png") == 1)

            // Off screen, nothing is taken back (a hidden view holds no image).
            loader.didDisappear()
            #expect(loader.previousResponse(for: ImageRequest(url: fixture.url("/a.png"), targetPixelSize: PixelSize(width: 64, height: 48))) == nil)
        }
    }
}
