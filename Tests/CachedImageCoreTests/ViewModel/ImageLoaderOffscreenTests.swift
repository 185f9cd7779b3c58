import Foundation
import Testing
import ImageFixtures
@_spi(Testing) @testable import CachedImageCore

/// The default off-screen behaviour (`.automatic`): a view that leaves the screen drops its
/// load's priority at once; past the grace period (measured on the injected clock) its load is
/// cancelled and its image let go; coming back takes the image from the memory cache in the
/// same frame, or loads it again.
@Suite("ImageLoader: letting go off screen", .timeLimit(.minutes(1)))
@MainActor
struct ImageLoaderOffscreenTests {
    typealias Seen = PhaseRecorder.Seen

    private func makeLoader(_ pipeline: ImagePipeline, _ fixture: ScriptedFixture) -> (ImageLoader, ManualScheduler) {
        let scheduler = ManualScheduler(clock: fixture.clock)
        return (ImageLoader(pipeline: pipeline, scheduler: scheduler), scheduler)
    }

    /// A view that shows `request`'s image (from the network, or from disk in its first frame)
    /// and then leaves the screen.
    private func shownThenGone(
        _ request: ImageRequest, _ pipeline: ImagePipeline, _ fixture: ScriptedFixture
    ) async -> (loader: ImageLoader, view: SwiftUIDriver, scheduler: ManualScheduler, recorder: PhaseRecorder) {
        let (loader, scheduler) = makeLoader(pipeline, fixture)
        let recorder = PhaseRecorder(loader)
        let view = SwiftUIDriver(loader: loader, request: request)
        view.appear()
        if loader.phase.response == nil { await recorder.wait { $0.successPath != nil } }
        loader.didDisappear()
        return (loader, view, scheduler, recorder)
    }

    @Test("the default is .automatic: lower the priority at once, cancel and let go after half a second")
    func defaultBehavior() {
        #expect(ImageLoader().offscreenBehavior == .automatic)
        #expect(OffscreenBehavior.automatic == .lowerPriorityThenCancel(to: .low, after: 0.5))
    }

    @Test("a quick scroll back (within the grace period) keeps the same load: priority low, then restored; one request")
    func quickScrollBackKeepsLoad() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/a.png", until: gate)
            let (loader, scheduler) = makeLoader(fixture.makePipeline(), fixture)
            let view = SwiftUIDriver(loader: loader, request: ImageRequest(url: fixture.url("/a.png")))
            view.appear()
            let task = try #require(loader.task)
            loader.didDisappear()
            #expect(task.priority == .low, "lowered at once")
            scheduler.advance(by: 0.4)
            #expect(loader.task === task, "not cancelled within the grace period")
            view.appear()
            #expect(task.priority == .normal)
            scheduler.advance(by: 10)
            #expect(loader.task === task)
            gate.open()
            await loader.settle()
            #expect(Seen(loader.phase) == .success(path: "/a.png", source: .network))
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
            #expect(loader.pipeline.statistics.cancellations == 0)
        }
    }

    @Test("a fling: a load still off screen past the grace period is cancelled; the view coming back loads it again")
    func flingCancelsAfterGrace() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/a.png", until: gate)
            let (loader, scheduler) = makeLoader(fixture.makePipeline(), fixture)
            let recorder = PhaseRecorder(loader)
            let view = SwiftUIDriver(loader: loader, request: ImageRequest(url: fixture.url("/a.png")))
            view.appear()
            #expect(await eventuallyOnMain { fixture.server.requestCount(for: "/a.png") == 1 }, "the download started")
            loader.didDisappear()
            scheduler.advance(by: 0.6)
            #expect(loader.task == nil)
            #expect(recorder.seen.last == .empty)
            #expect(await eventuallyOnMain { loader.pipeline.statistics.cancellations == 1 })
            // Nothing loads while it stays away.
            view.render()
            loader.load(view.request)
            #expect(loader.task == nil)

            gate.open()
            view.appear()
            #expect(loader.phase.isLoading, "a genuinely new appearance loads again")
            await recorder.wait { $0.successPath != nil }
            #expect(fixture.server.requestCount(for: "/a.png") == 2)
        }
    }

    @Test("a load another view still wants keeps going when this view lets go of it")
    func sharedLoadKeepsGoing() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/a.png", until: gate)
            let pipeline = fixture.makePipeline()
            let (leaving, scheduler) = makeLoader(pipeline, fixture)
            let (staying, _) = makeLoader(pipeline, fixture)
            let stayingRecorder = PhaseRecorder(staying)
            let request = ImageRequest(url: fixture.url("/a.png"))
            SwiftUIDriver(loader: leaving, request: request).appear()
            SwiftUIDriver(loader: staying, request: request).appear()
            leaving.didDisappear()
            scheduler.advance(by: 1)
            #expect(leaving.task == nil)
            gate.open()
            await stayingRecorder.wait { $0.successPath != nil }
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("an image is let go off screen and comes back from the memory cache in the first frame, with no request")
    func releasedImageComesBackFromMemory() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let (loader, scheduler) = makeLoader(fixture.makePipeline(), fixture)
            let recorder = PhaseRecorder(loader)
            let view = SwiftUIDriver(loader: loader, request: ImageRequest(url: fixture.url("/a.png")))
            view.appear()
            await recorder.wait { $0.successPath != nil }

            loader.didDisappear()
            #expect(loader.phase.response != nil, "kept for the rest of the turn (a branch swap)")
            scheduler.advance(by: 0)
            #expect(loader.phase.response == nil, "the memory cache holds it: the loader lets go at once")
            #expect(loader.previousResponse == nil)
            // A body rendered while the view is still off screen (a hidden tab whose model
            // published, or SwiftUI's order on a return) takes nothing back: off screen is quiet.
            #expect(Seen(view.render()) == .empty, "rendered off screen: nothing taken back")
            scheduler.advance(by: 0.6)
            #expect(recorder.seen.last == .empty)

            // Coming back: onAppear takes it back from memory, and completes before the first
            // frame is rendered.
            loader.didAppear()
            #expect(Seen(view.render()) == .success(path: "/a.png", source: .memory))
            loader.load(view.request)
            #expect(recorder.seen.suffix(2) == [.empty, .success(path: "/a.png", source: .memory)], "\(recorder.seen)")
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
            #expect(recorder.seen.filter(\.isLoading).count == 1, "one load in all")
        }
    }

    @Test("a fling's rows keep no image past the memory budget: each lets go of what the cache holds, and an image the cache does not hold is kept for the grace period")
    func offscreenViewsHoldNothingTheCacheHolds() async throws {
        try await withScriptedFixture { fixture throws in
            for index in 0..<8 { fixture.servePNG("/\(index).png", width: 100, height: 100) }
            // Room for two images of 40 KB: a fling through eight leaves six evicted.
            let pipeline = fixture.makePipeline { $0.memoryCacheCostLimit = 100_000; $0.memoryCacheMaximumEntryShare = 1 }
            var rows: [(loader: ImageLoader, view: SwiftUIDriver, scheduler: ManualScheduler, recorder: PhaseRecorder)] = []
            for index in 0..<8 {
                rows.append(await shownThenGone(ImageRequest(url: fixture.url("/\(index).png")), pipeline, fixture))
                // The next row appears within the same grace period; the turn ends.
                for row in rows { row.scheduler.advance(by: 0) }
                let held = rows.reduce(0) { $0 + ($1.loader.phase.response?.image.cost ?? 0) }
                let cached = pipeline.memoryCache?.totalCost ?? 0
                #expect(held == 0, "rows in their grace period hold nothing the budget does not count (\(held) bytes)")
                #expect(cached <= 100_000)
            }
            // An image the memory cache does not keep (skipMemoryCache) stays for the grace period.
            let (loader, _, scheduler, _) = await shownThenGone(
                ImageRequest(url: fixture.url("/0.png"), options: [.skipMemoryCache]), pipeline, fixture
            )
            scheduler.advance(by: 0.3)
            #expect(loader.phase.response != nil, "kept during the grace period: a return would load it again")
            scheduler.advance(by: 0.3)
            #expect(loader.phase.response == nil)
        }
    }

    @Test("an image let go and evicted from memory comes back from disk, not the network")
    func releasedAndEvictedComesBackFromDisk() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let pipeline = fixture.makePipeline()
            let (loader, view, scheduler, recorder) = await shownThenGone(ImageRequest(url: fixture.url("/a.png")), pipeline, fixture)
            scheduler.advance(by: 1)
            pipeline.memoryCache?.removeAll()

            // onAppear reads the small disk entry synchronously, before the first frame.
            #expect(Seen(view.render()) == .empty, "still off screen")
            view.appear()
            #expect(recorder.seen.last == .success(path: "/a.png", source: .disk), "\(recorder.seen)")
            await loader.settle()
            #expect(Seen(loader.phase) == .success(path: "/a.png", source: .disk))
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("with .lowerPriority(to:), nothing is cancelled or let go off screen")
    func lowerPriorityKeepsEverything() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), offscreenBehavior: .lowerPriority(to: .low), scheduler: scheduler)
            let recorder = PhaseRecorder(loader)
            let view = SwiftUIDriver(loader: loader, request: ImageRequest(url: fixture.url("/a.png")))
            view.appear()
            await recorder.wait { $0.successPath != nil }
            loader.didDisappear()
            scheduler.advance(by: 60)
            #expect(loader.phase.response != nil)
            #expect(scheduler.pendingCount == 0)
        }
    }
}
