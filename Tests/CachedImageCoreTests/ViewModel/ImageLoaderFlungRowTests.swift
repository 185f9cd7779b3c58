import Foundation
import Testing
import ImageFixtures
@_spi(Testing) @testable import CachedImageCore

/// A row flung past (on screen a few frames, nothing shown) gets no grace period: its load stops
/// at the end of the turn, as AsyncImage's does. A row on screen longer keeps the grace period,
/// so a quick scroll back rejoins its download (one request). Time is the injected clock's.
@Suite("ImageLoader: flung rows", .timeLimit(.minutes(1)))
@MainActor
struct ImageLoaderFlungRowTests {
    /// A view over `/a.png`, held by the server until `gate` opens, on screen and loading.
    private struct HeldRow {
        let gate = Gate()
        let loader: ImageLoader
        let scheduler: ManualScheduler
        let view: SwiftUIDriver

        @MainActor
        init(_ fixture: ScriptedFixture) {
            fixture.serveHeldPNG("/a.png", until: gate)
            scheduler = ManualScheduler(clock: fixture.clock)
            loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: scheduler)
            view = SwiftUIDriver(loader: loader, request: ImageRequest(url: fixture.url("/a.png")))
            view.appear()
        }
    }

    @Test("the rule: flung (on screen under a quarter second, nothing shown) -> no grace; else the behaviour's")
    func rule() {
        let automatic = OffscreenBehavior.automatic
        #expect(OffscreenGrace.gracePeriod(automatic, visibleTime: 0.064, showedImage: false) == 0)
        #expect(OffscreenGrace.gracePeriod(automatic, visibleTime: 0.3, showedImage: false) == 0.5)
        #expect(OffscreenGrace.gracePeriod(automatic, visibleTime: 0.064, showedImage: true) == 0.5, "an image shown keeps its grace")
        #expect(OffscreenGrace.gracePeriod(automatic, visibleTime: nil, showedImage: false) == 0.5, "never reported: unknown")
        #expect(OffscreenGrace.gracePeriod(automatic, visibleTime: 0, showedImage: false) == 0.5, "appeared and left in one update: a swap")
        #expect(OffscreenGrace.gracePeriod(.lowerPriority(to: .low), visibleTime: 0.01, showedImage: false) == nil, "never cancelled stays so")
        #expect(OffscreenGrace.gracePeriod(.cancel, visibleTime: 5, showedImage: true) == 0)
    }

    @Test("a row flung past stops its load at the end of the turn; coming back loads it again")
    func flungRowStopsAtOnce() async throws {
        try await withScriptedFixture { fixture throws in
            let row = HeldRow(fixture)
            let (gate, loader, scheduler, view) = (row.gate, row.loader, row.scheduler, row.view)
            let recorder = PhaseRecorder(loader)
            #expect(await eventuallyOnMain { fixture.server.requestCount(for: "/a.png") == 1 })
            scheduler.advance(by: 0.064) // four frames
            loader.didDisappear()
            #expect(loader.task != nil, "nothing stops within the turn")
            scheduler.endTurn()
            #expect(loader.task == nil, "stopped at the end of the turn: no grace period")
            #expect(recorder.seen.last == .empty)
            #expect(await eventuallyOnMain { loader.pipeline.statistics.cancellations == 1 })
            gate.open()
            view.appear()
            await recorder.wait { $0.successPath != nil }
            #expect(fixture.server.requestCount(for: "/a.png") == 2)
        }
    }

    @Test("a flung row's branch swap (disappear and appear in one turn) stops nothing")
    func branchSwapStopsNothing() async throws {
        try await withScriptedFixture { fixture throws in
            let row = HeldRow(fixture)
            let (gate, loader, scheduler, view) = (row.gate, row.loader, row.scheduler, row.view)
            let task = try #require(loader.task)
            loader.didDisappear()
            view.appear()
            scheduler.endTurn()
            scheduler.advance(by: 1)
            #expect(loader.task === task)
            gate.open()
            await loader.settle()
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("a row on screen past the fling threshold keeps its grace: a quick scroll back rejoins the download, one request")
    func shownRowKeepsGrace() async throws {
        try await withScriptedFixture { fixture throws in
            let row = HeldRow(fixture)
            let (gate, loader, scheduler, view) = (row.gate, row.loader, row.scheduler, row.view)
            let task = try #require(loader.task)
            scheduler.advance(by: 0.3)
            loader.didDisappear()
            scheduler.advance(by: 0.4)
            #expect(loader.task === task, "within the grace period")
            view.appear()
            // Flung past on the way back does not make it flung: it was on screen before.
            scheduler.advance(by: 1)
            #expect(loader.task === task)
            gate.open()
            await loader.settle()
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
            #expect(loader.pipeline.statistics.cancellations == 0)
        }
    }
}
