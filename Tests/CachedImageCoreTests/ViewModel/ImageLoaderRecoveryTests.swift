import Foundation
import Testing
@_spi(Testing) @testable import CachedImageCore

/// Failures recover, loops don't: a transient failure is asked again when its view returns
/// after its grace period, when the app returns to the foreground and when the network comes
/// back (for views on screen); never on branch swaps, quick re-appearances or for a `404`.
@Suite("ImageLoader: failures recover, loops don't", .timeLimit(.minutes(1)))
@MainActor
struct ImageLoaderRecoveryTests {
    enum Failure: String, CaseIterable, Sendable {
        case droppedConnection, serverError, notFound
        var response: ScriptedResponse {
            switch self {
            case .droppedConnection: .transportFailure()
            case .serverError: .status(503, headers: ["Cache-Control": "no-store"])
            case .notFound: .status(404)
            }
        }
        var isTransient: Bool { self != .notFound }
    }

    private struct Setup {
        let loader: ImageLoader
        let scheduler: ManualScheduler
        let recovery: FailureRecovery
        let recorder: PhaseRecorder
        let view: SwiftUIDriver
    }

    /// A view on screen showing `failure` for `/a.png`; the server then serves the image.
    private func failingView(_ fixture: ScriptedFixture, _ failure: Failure) async -> Setup {
        fixture.server.serve("/a.png", failure.response)
        let scheduler = ManualScheduler(clock: fixture.clock)
        let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: scheduler)
        let recovery = FailureRecovery()
        loader.failureRecovery = recovery
        let recorder = PhaseRecorder(loader)
        let view = SwiftUIDriver(loader: loader, request: ImageRequest(url: fixture.url("/a.png")))
        view.appear()
        await recorder.wait { $0.isFailure }
        fixture.servePNG("/a.png")
        return Setup(loader: loader, scheduler: scheduler, recovery: recovery, recorder: recorder, view: view)
    }

    /// The view leaves the screen (onDisappear).
    private func leave(_ setup: Setup) {
        setup.loader.didDisappear()
    }

    /// The view comes back: body, onAppear, task.
    private func comeBack(_ setup: Setup) {
        setup.view.appear()
    }

    @Test("a failed view that returns after its grace period asks again (transient failures only)", arguments: Failure.allCases)
    func returnAfterGracePeriod(failure: Failure) async throws {
        try await withScriptedFixture { fixture throws in
            let setup = await failingView(fixture, failure)
            leave(setup)
            setup.scheduler.advance(by: 0.6)
            comeBack(setup)
            if failure.isTransient {
                await setup.recorder.wait { $0.successPath == "/a.png" }
                #expect(fixture.server.requestCount(for: "/a.png") == 2)
            } else {
                await setup.loader.settle()
                #expect(Seen(setup.loader.phase).isFailure)
                #expect(fixture.server.requestCount(for: "/a.png") == 1, "a 404 stays a failure")
            }
        }
    }

    @Test("quick re-appearances and branch swaps never ask again", arguments: Failure.allCases)
    func quickReturnsDoNotAsk(failure: Failure) async throws {
        try await withScriptedFixture { fixture throws in
            let setup = await failingView(fixture, failure)
            for round in 0..<10 {
                leave(setup)
                setup.scheduler.advance(by: 0.1)
                comeBack(setup)
                setup.view.branchSwap(animated: round.isMultiple(of: 2))
                setup.scheduler.endTurn()
            }
            await setup.loader.settle()
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
            #expect(Seen(setup.loader.phase).isFailure)
        }
    }

    @Test("the app returning to the foreground asks again for a view on screen, once", arguments: Failure.allCases)
    func foregroundOnScreen(failure: Failure) async throws {
        try await withScriptedFixture { fixture throws in
            let setup = await failingView(fixture, failure)
            setup.recovery.appDidEnterForeground()
            if failure.isTransient {
                await setup.recorder.wait { $0.successPath == "/a.png" }
            }
            setup.recovery.appDidEnterForeground() // a success is never reloaded
            await setup.loader.settle()
            #expect(fixture.server.requestCount(for: "/a.png") == (failure.isTransient ? 2 : 1))
        }
    }

    @Test("connectivity coming back asks again for views on screen; a view off screen asks when it returns")
    func connectivityReturns() async throws {
        try await withScriptedFixture { fixture throws in
            let monitor = NetworkMonitor(conditions: .init(isReachable: true))
            let onScreen = await failingView(fixture, .droppedConnection)
            onScreen.recovery.follow(monitor)
            fixture.server.serve("/b.png", .transportFailure())
            let offScreenLoader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: onScreen.scheduler)
            offScreenLoader.failureRecovery = onScreen.recovery
            let offScreen = SwiftUIDriver(loader: offScreenLoader, request: ImageRequest(url: fixture.url("/b.png")))
            let offScreenRecorder = PhaseRecorder(offScreenLoader)
            offScreen.appear()
            await offScreenRecorder.wait { $0.isFailure }
            fixture.servePNG("/b.png", seed: 2)
            offScreenLoader.didDisappear() // within its grace period: still counts as a quick leave

            monitor.update(.init(isReachable: false))
            monitor.update(.init(isReachable: false))
            #expect(fixture.server.totalRequestCount == 2, "losing the network asks nothing")
            monitor.update(.init(isReachable: true))
            await onScreen.recorder.wait { $0.successPath == "/a.png" }
            #expect(fixture.server.requestCount(for: "/b.png") == 1, "off screen: nothing yet")

            offScreen.appear() // back before its grace period ended, but the network came back meanwhile
            await offScreenRecorder.wait { $0.successPath == "/b.png" }
            #expect(fixture.server.requestCount(for: "/a.png") == 2)
            #expect(fixture.server.requestCount(for: "/b.png") == 2)
        }
    }

    /// The events that may reach a failed view, in any order.
    enum Event: CaseIterable, Sendable {
        case foreground, leaveAndWait, leaveBriefly, appear, branchSwap, reload
    }

    @Test("under any order of events, a transient failure is asked again at most once per reason and only on screen",
          arguments: [[Event.foreground, .leaveAndWait, .appear], [.leaveAndWait, .foreground, .appear], [.leaveBriefly, .foreground, .appear],
                      [.branchSwap, .reload, .leaveBriefly, .appear], [.appear, .appear, .leaveAndWait, .leaveAndWait, .appear, .appear],
                      [.leaveAndWait, .branchSwap, .appear], [.reload, .foreground, .foreground]])
    func anyOrder(events: [Event]) async throws {
        try await withScriptedFixture { fixture throws in
            let setup = await failingView(fixture, .droppedConnection)
            fixture.server.serve("/a.png", .transportFailure()) // keeps failing: nothing may loop
            var expected = 1
            var onScreenCount = 1
            var stale = false
            for event in events {
                switch event {
                case .foreground:
                    setup.recovery.appDidEnterForeground()
                    if onScreenCount > 0 { expected += 1 } else { stale = true }
                case .leaveAndWait:
                    setup.loader.didDisappear()
                    onScreenCount = max(0, onScreenCount - 1)
                    setup.scheduler.advance(by: 0.6)
                    if onScreenCount == 0 { stale = true }
                case .leaveBriefly:
                    setup.loader.didDisappear()
                    onScreenCount = max(0, onScreenCount - 1)
                    setup.scheduler.advance(by: 0.1)
                case .appear:
                    setup.view.appear()
                    onScreenCount += 1
                    if stale { expected += 1; stale = false }
                case .branchSwap:
                    setup.view.branchSwap(animated: true)
                    setup.scheduler.endTurn()
                case .reload:
                    setup.loader.load(setup.view.request)
                }
                await setup.loader.settle()
                #expect(await eventuallyOnMain { !Seen(setup.loader.phase).isLoading })
            }
            #expect(fixture.server.requestCount(for: "/a.png") == expected, "\(events)")
            #expect(Seen(setup.loader.phase).isFailure)
        }
    }

    typealias Seen = PhaseRecorder.Seen
}
