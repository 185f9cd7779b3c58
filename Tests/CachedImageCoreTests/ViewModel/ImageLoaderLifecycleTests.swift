import Foundation
import Testing
import ImageFixtures
@_spi(Testing) @testable import CachedImageCore

/// `ImageLoader` driven exactly as SwiftUI drives it: `body` (`phase(for:)`), `onAppear`,
/// `.task` (`load`) and `onDisappear`, repeated by branch swaps, in both orders SwiftUI uses.
@Suite("ImageLoader: SwiftUI's lifecycle", .timeLimit(.minutes(1)))
@MainActor
struct ImageLoaderLifecycleTests {
    typealias Seen = PhaseRecorder.Seen

    enum FailureKind: String, CaseIterable, Sendable {
        case notFound, droppedConnection
    }

    private func makeLoader(_ fixture: ScriptedFixture, _ behavior: OffscreenBehavior = .automatic) -> (ImageLoader, ManualScheduler) {
        let scheduler = ManualScheduler(clock: fixture.clock)
        return (ImageLoader(pipeline: fixture.makePipeline(), offscreenBehavior: behavior, scheduler: scheduler), scheduler)
    }

    @Test("after a failure, 20 branch swaps make no request and no .loading phase", arguments: FailureKind.allCases)
    func failureIsNotReloadedByBranchSwaps(kind: FailureKind) async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/broken.png", kind == .notFound ? .status(404) : .transportFailure())
            let (loader, scheduler) = makeLoader(fixture)
            let recorder = PhaseRecorder(loader)
            let view = SwiftUIDriver(loader: loader, request: ImageRequest(url: fixture.url("/broken.png")))
            view.appear()
            await recorder.wait { $0.isFailure }
            let afterFailure = recorder.seen.count

            for swap in 0..<20 {
                view.branchSwap(animated: swap.isMultiple(of: 2))
                scheduler.endTurn()
                await Task.yield()
            }
            await loader.settle()

            #expect(fixture.server.requestCount(for: "/broken.png") == 1)
            #expect(recorder.seen.count == afterFailure, "no phase change after the failure: \(recorder.seen)")
            #expect(Seen(view.render()).isFailure)
        }
    }

    @Test("a success is never reloaded: branch swaps, quick disappear/appear and repeated loads change nothing")
    func successIsNeverReloaded() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let (loader, scheduler) = makeLoader(fixture)
            let recorder = PhaseRecorder(loader)
            let view = SwiftUIDriver(loader: loader, request: ImageRequest(url: fixture.url("/a.png")))
            view.appear()
            await recorder.wait { $0.successPath != nil }
            let afterSuccess = recorder.seen.count

            for swap in 0..<20 {
                view.branchSwap(animated: !swap.isMultiple(of: 3))
                loader.load(view.request)
                scheduler.advance(by: 0.1)  // well within the grace period
            }
            await loader.settle()

            #expect(fixture.server.requestCount(for: "/a.png") == 1)
            #expect(recorder.seen.count == afterSuccess, "\(recorder.seen)")
            #expect(Seen(view.render()) == .success(path: "/a.png", source: .network))
        }
    }

    @Test("a nil URL is .empty and requests nothing, whatever the view does")
    func nilURLIsEmpty() async throws {
        try await withScriptedFixture { fixture throws in
            let (loader, scheduler) = makeLoader(fixture)
            let recorder = PhaseRecorder(loader)
            let view = SwiftUIDriver(loader: loader, request: ImageRequest(url: nil))
            #expect(Seen(view.render()) == .empty)
            view.appear()
            for swap in 0..<5 { view.branchSwap(animated: swap.isMultiple(of: 2)) }
            loader.retry()
            loader.didDisappear()
            scheduler.advance(by: 5)
            view.appear()
            await loader.settle()

            #expect(fixture.server.totalRequestCount == 0)
            #expect(loader.task == nil)
            #expect(recorder.seen.allSatisfy { $0 == .empty }, "\(recorder.seen)")
            #expect(Seen(loader.phase) == .empty)
        }
    }

    nonisolated static let behaviors: [OffscreenBehavior] = [.automatic, .cancel, .lowerPriority(to: .low)]

    @Test("a branch swap leaves the visible load running at its own priority (both orders, every off-screen behaviour)",
          arguments: behaviors, [true, false])
    func branchSwapKeepsVisibleLoad(behavior: OffscreenBehavior, animated: Bool) async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/a.png", until: gate)
            let (loader, scheduler) = makeLoader(fixture, behavior)
            let recorder = PhaseRecorder(loader)
            let view = SwiftUIDriver(loader: loader, request: ImageRequest(url: fixture.url("/a.png"), priority: .high))
            view.appear()
            let task = try #require(loader.task)

            view.branchSwap(animated: animated)
            scheduler.endTurn()
            scheduler.advance(by: 10)  // far past any grace period

            #expect(loader.isOnScreen)
            #expect(loader.task === task, "the visible load was neither cancelled nor restarted")
            #expect(task.priority == .high)
            #expect(loader.phase.isLoading)
            gate.open()
            await recorder.wait { $0.successPath != nil }
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
            #expect(pipelineCancellations(loader) == 0)
        }
    }

    @Test("an old branch's late onDisappear, arriving after the new branch appeared, never hides the view")
    func lateDisappearDoesNotHide() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/a.png", until: gate)
            let (loader, scheduler) = makeLoader(fixture, .cancel)
            let view = SwiftUIDriver(loader: loader, request: ImageRequest(url: fixture.url("/a.png")))
            view.appear()
            loader.didAppear()      // new branch
            loader.didDisappear()   // old branch, late
            loader.didDisappear()   // a duplicate: absorbed...
            #expect(!loader.isOnScreen, "...the count reached zero: off screen")
            loader.didAppear()
            loader.didDisappear()
            loader.didDisappear()   // below zero is absorbed
            loader.didAppear()      // one appearance outstanding: on screen
            scheduler.advance(by: 1)
            #expect(loader.isOnScreen)
            #expect(loader.phase.isLoading)
            gate.open()
            await loader.settle()
        }
    }

    private func pipelineCancellations(_ loader: ImageLoader) -> Int {
        loader.pipeline.statistics.cancellations
    }
}

extension PhaseRecorder.Seen {
    var isEmpty: Bool { self == .empty }
}
