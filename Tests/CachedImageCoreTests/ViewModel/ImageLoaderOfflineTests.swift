import Foundation
import Testing
@_spi(Testing) @testable import CachedImageCore

/// Offline keeps what the user has seen: a stale image from disk stays on screen when its
/// revalidation fails for a passing reason (no connection, a dropped one, a `5xx`; or
/// `NetworkMonitor` says the network is unreachable, and nothing is asked), `no-cache`
/// included; the failure reaches the app without replacing the image, and the view asks again
/// when the network returns. A view off screen but kept in the graph stays quiet.
@Suite("ImageLoader: offline, and off screen in the graph", .timeLimit(.minutes(1)))
@MainActor
struct ImageLoaderOfflineTests {
    typealias Seen = PhaseRecorder.Seen
    typealias Stored = ImageLoaderRelaunchTests.Stored
    typealias Size = ImageLoaderRelaunchTests.Size

    nonisolated static let cases: [(Stored, Size)] = Stored.stale.flatMap { stored in Size.allCases.map { (stored, $0) } }

    @Test("a relaunch offline keeps the stale image on screen with the error, and revalidates it when the network returns", arguments: cases)
    func offlineKeepsStaleImage(stored: Stored, size: Size) async throws {
        try await withScriptedFixture { fixture throws in
            let view = try await ImageLoaderRelaunchTests.relaunchedView(fixture, stored, size)
            fixture.server.serve("/a.png", .transportFailure(.notConnectedToInternet))
            let first = view.driver.render()
            #expect(Seen(first) == (size == .small ? .success(path: "/a.png", source: .disk) : .empty))
            view.driver.appear()
            await view.loader.settle()
            view.scheduler.endTurn()

            #expect(Seen(view.loader.phase) == .success(path: "/a.png", source: .disk), "the image stays: \(view.recorder.seen)")
            #expect(!view.recorder.seen.contains { $0 == .empty }, "\(view.recorder.seen)")
            let response = try #require(view.loader.phase.response)
            #expect(response.isStale)
            #expect(response.revalidationError?.isTransient == true)
            #expect(view.loader.phase.error != nil, "the failure reaches the app")
            #expect(view.failures.values.count == 1, "onFailure once")
            #expect(!view.loader.isRevalidating)

            // The network comes back: the same image is revalidated, once.
            fixture.servePNG("/a.png", width: size.pixels.width, height: size.pixels.height, headers: stored.headers)
            fixture.server.resetCounters()
            view.recovery.networkDidBecomeAvailable()
            #expect(view.loader.isRevalidating)
            await view.loader.settle()
            #expect(view.loader.phase.response?.isStale == false)
            #expect(view.loader.phase.error == nil)
            #expect(Seen(view.loader.phase) == .success(path: "/a.png", source: .disk), "a 304: not swapped")
            #expect(ImageLoaderRelaunchTests.conditionalRequests(fixture) == 1)
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("NetworkMonitor unreachable: the stale image shows with the error and nothing is asked until the network is back", arguments: Stored.stale)
    func unreachableAsksNothing(stored: Stored) async throws {
        try await withScriptedFixture { fixture throws in
            let view = try await ImageLoaderRelaunchTests.relaunchedView(fixture, stored, .small)
            let monitor = NetworkMonitor(conditions: .init(isReachable: false))
            view.recovery.follow(monitor)
            #expect(!view.recovery.isNetworkReachable)

            #expect(Seen(view.driver.render()) == .success(path: "/a.png", source: .disk), "the first frame shows it")
            view.driver.appear()
            view.scheduler.endTurn()
            await view.loader.settle()
            #expect(view.loader.phase.response?.isStale == true)
            #expect(view.loader.phase.response?.revalidationError?.isTransient == true)
            #expect(view.failures.values.count == 1)
            #expect(fixture.server.totalRequestCount == 0, "offline: no request")

            let published = view.recorder.seen.count
            monitor.update(.init(isReachable: true))
            await view.recorder.wait(from: published) { _ in true } // the recovery hops to the main actor
            await view.loader.settle()
            #expect(view.loader.phase.response?.isStale == false)
            #expect(view.loader.phase.error == nil)
            #expect(ImageLoaderRelaunchTests.conditionalRequests(fixture) == 1)
        }
    }

    @Test("a 5xx on revalidation keeps the image; a 404 says the image is gone and replaces it")
    func serverAnswers() async throws {
        try await withScriptedFixture { fixture throws in
            let view = try await ImageLoaderRelaunchTests.relaunchedView(fixture, .noCache, .small)
            fixture.server.serve("/a.png", .unavailable())
            view.driver.appear()
            await view.loader.settle()
            #expect(Seen(view.loader.phase) == .success(path: "/a.png", source: .disk))
            #expect(view.loader.phase.response?.revalidationError?.isTransient == true)

            fixture.server.serve("/a.png", .status(404))
            view.loader.retry()
            await view.loader.settle()
            #expect(view.loader.phase.response == nil, "\(view.recorder.seen)")
            #expect((view.loader.phase.error as? ImagePipeline.Error)?.isTransient == false)
        }
    }

    @Test("a view off screen but kept in the graph (its body evaluated on every change) lets go once and asks nothing for 5 s")
    func offscreenInGraphIsQuiet() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", headers: ["Cache-Control": "no-cache", "ETag": "\"v1\""])
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: scheduler)
            let recorder = PhaseRecorder(loader)
            let view = SwiftUIDriver(loader: loader, request: ImageRequest(url: fixture.url("/a.png")))
            view.appear()
            await recorder.wait { $0.successPath != nil }
            fixture.server.resetCounters()
            let before = recorder.seen.count

            loader.didDisappear() // a tab switched away: the view stays in the graph
            for _ in 0..<50 {
                scheduler.advance(by: 0.1)
                view.render() // its body runs whenever its model (or a parent) publishes
                await loader.settle()
            }
            #expect(fixture.server.totalRequestCount == 0, "no request while hidden")
            #expect(Array(recorder.seen.dropFirst(before)) == [.empty], "let go once, nothing more: \(recorder.seen)")
            #expect(!loader.isRevalidating)

            // Back on the tab: onAppear shows it before the first frame, revalidated behind it.
            view.appear()
            #expect(recorder.seen.last == .success(path: "/a.png", source: .memory))
            await loader.settle()
            #expect(fixture.server.totalRequestCount == 1)
        }
    }
}
