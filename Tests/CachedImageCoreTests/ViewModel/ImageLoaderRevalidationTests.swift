import Foundation
import ImageFixtures
import Testing
@_spi(Testing) @testable import CachedImageCore

/// The revalidation behind a stale image under the orders an app produces: asked again while
/// one runs, again while still offline, retried after its copy left memory, joined by a view
/// after another caller started the work, under Low Data Mode's cache only, and across
/// appearances of a view that is never let go.
@Suite("ImageLoader: the revalidation behind a stale image", .timeLimit(.minutes(1)))
@MainActor
struct ImageLoaderRevalidationTests {
    typealias Seen = PhaseRecorder.Seen
    typealias Relaunch = ImageLoaderRelaunchTests

    @Test("asked again while a revalidation runs (a cell configured twice): the last answer counts")
    func askedAgainWhileRunning() async throws {
        try await withScriptedFixture { fixture throws in
            let view = try await Relaunch.relaunchedView(fixture, .noCache, .small)
            fixture.server.serve("/a.png", .transportFailure(.notConnectedToInternet))
            view.driver.appear()
            await view.loader.settle()
            #expect(view.loader.phase.error != nil)

            fixture.servePNG("/a.png", headers: Relaunch.Stored.noCache.headers)
            let request = view.driver.request
            view.loader.askAgain(request)
            view.loader.askAgain(request) // the first one is cancelled: its answer must not win
            await view.loader.settle()
            #expect(view.loader.phase.response?.isStale == false, "the 304 counts")
            #expect(view.loader.phase.error == nil)
            #expect(!view.loader.isRevalidating)
        }
    }

    @Test("offline, asked again and failing again: still waiting for the network, reported each time")
    func failsAgainOffline() async throws {
        try await withScriptedFixture { fixture throws in
            let view = try await Relaunch.relaunchedView(fixture, .expired, .small)
            fixture.server.serve("/a.png", .transportFailure(.notConnectedToInternet))
            view.driver.appear()
            await view.loader.settle()
            view.scheduler.endTurn()
            #expect(view.recovery.waitingCount == 1)
            view.recovery.networkDidBecomeAvailable() // a false alarm: still offline
            await view.loader.settle()
            #expect(view.loader.phase.response?.revalidationError != nil)
            #expect(view.recovery.waitingCount == 1, "still waiting")
            #expect(view.failures.values.count == 2)

            fixture.servePNG("/a.png", headers: Relaunch.Stored.expired.headers)
            view.recovery.networkDidBecomeAvailable()
            await view.loader.settle()
            #expect(view.loader.phase.response?.isStale == false)
            #expect(view.recovery.waitingCount == 0)
        }
    }

    @Test("retry() on a stale image whose copy left memory revalidates it behind it: no placeholder")
    func retryKeepsImage() async throws {
        try await withScriptedFixture { fixture throws in
            let view = try await Relaunch.relaunchedView(fixture, .noCache, .large)
            fixture.server.serve("/a.png", .unavailable())
            view.driver.appear()
            await view.loader.settle()
            #expect(view.loader.phase.response?.revalidationError != nil)
            view.loader.pipeline.memoryCache?.removeAll() // a memory warning
            fixture.servePNG("/a.png", width: 320, height: 240, headers: Relaunch.Stored.noCache.headers)
            let before = view.recorder.seen.count
            view.loader.retry()
            await view.loader.settle()
            #expect(!view.recorder.seen.dropFirst(before).contains { $0 == .empty || $0.isLoading }, "\(view.recorder.seen)")
            #expect(view.loader.phase.response?.isStale == false)
        }
    }

    @Test("a view joining work another view started gets the stale copy before the server answers (the copy kept for display, or the job's)", arguments: [Relaunch.Stored.noCache, .expired])
    func joinerGetsStaleCopy(stored: Relaunch.Stored) async throws {
        try await withScriptedFixture { fixture throws in
            let view = try await Relaunch.relaunchedView(fixture, stored, .large)
            let gate = Gate()
            let image = ImageFixtures.png(width: 320, height: 240, seed: 1)
            let headers = stored.headers
            fixture.server.serve("/a.png") { _ in
                await gate.wait()
                return .ok(image, contentType: "image/png", headers: headers)
            }
            // Another view (a list row, while a detail view opens) owns the image job.
            let other = ImageLoader(pipeline: view.loader.pipeline, scheduler: view.scheduler)
            let otherRecorder = PhaseRecorder(other)
            SwiftUIDriver(loader: other, request: view.driver.request).appear()
            await otherRecorder.wait { $0.successPath != nil }
            // no-cache: the other view's copy is kept for display (the first frame has it); an
            // expired one is not while shown, so the view joins the job and gets its stale copy.
            view.driver.appear()
            for _ in 0..<100_000 where view.loader.phase.response == nil { await Task.yield() }
            #expect(view.loader.phase.response?.isStale == true, "shown before the server answered (it answers once the gate opens)")
            gate.open()
            await other.settle()
            await view.loader.settle()
            #expect(view.loader.phase.response?.isStale == false)
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("Low Data Mode's cache only: nothing may be asked; a stale image on disk or shown stays")
    func cacheOnlyKeepsImage() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", headers: Relaunch.Stored.noCache.headers)
            var request = ImageRequest(url: fixture.url("/a.png"))
            request.constrainedNetworkPolicy = .cacheOnly
            let constrained = Locked(false)
            let configure: (inout ImagePipeline.Configuration) -> Void = { configuration in
                configuration.isNetworkConstrained = { constrained.withLock { $0 } }
            }
            // Shown on an unconstrained network, let go off screen; then Low Data Mode.
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: fixture.makePipeline(configure), scheduler: scheduler)
            let recorder = PhaseRecorder(loader)
            let view = SwiftUIDriver(loader: loader, request: request)
            view.appear()
            await recorder.wait { $0.successPath != nil }
            loader.didDisappear()
            scheduler.advance(by: 1)
            constrained.withLock { $0 = true }
            fixture.server.resetCounters()

            view.appear() // the image shown since launch, revalidated: not allowed, so kept
            await loader.settle()
            scheduler.endTurn()
            #expect(Seen(loader.phase) == .success(path: "/a.png", source: .memory), "\(recorder.seen)")
            #expect(loader.phase.response?.isStale == true)

            // A relaunch in Low Data Mode: the disk's copy is in the first frame.
            let relaunched = ImageLoader(pipeline: fixture.makePipeline(configure), scheduler: scheduler)
            let again = SwiftUIDriver(loader: relaunched, request: request)
            #expect(Seen(again.render()) == .success(path: "/a.png", source: .disk))
            again.appear()
            await relaunched.settle()
            scheduler.endTurn()
            #expect(Seen(relaunched.phase) == .success(path: "/a.png", source: .disk))
            #expect(fixture.server.totalRequestCount == 0)
        }
    }

    @Test("a view never let go (.lowerPriority) revalidates again after it was away, not after a branch swap")
    func confirmationLastsOneAppearance() async throws {
        try await withScriptedFixture { fixture throws in
            let view = try await Relaunch.relaunchedView(fixture, .noCache, .small)
            view.loader.offscreenBehavior = .lowerPriority(to: .low)
            view.driver.appear()
            await view.loader.settle()
            #expect(Relaunch.conditionalRequests(fixture) == 1)

            view.driver.branchSwap(animated: false) // the same appearance
            view.loader.askAgain(view.driver.request)
            view.scheduler.endTurn()
            await view.loader.settle()
            #expect(Relaunch.conditionalRequests(fixture) == 1, "confirmed in this appearance")

            view.loader.didDisappear()
            view.scheduler.advance(by: 5)
            view.driver.appear()
            await view.loader.settle()
            #expect(Relaunch.conditionalRequests(fixture) == 2, "a new appearance asks again")
        }
    }

    @Test("the stand-in image of another size shows only until the request's own: not after cancel()")
    func standInEndsWithTheLoad() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            let image = ImageFixtures.png(width: 320, height: 240, seed: 1)
            fixture.server.serve("/a.png") { request in
                if request.header("X-Second") != nil { await gate.wait() }
                return .ok(image, contentType: "image/png", headers: ["Cache-Control": "max-age=3600"])
            }
            let pipeline = fixture.makePipeline { $0.diskCacheDirectory = nil }
            let small = ImageRequest(url: fixture.url("/a.png"), targetPixelSize: PixelSize(width: 32, height: 24))
            let shown = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            let shownRecorder = PhaseRecorder(shown)
            SwiftUIDriver(loader: shown, request: small).appear()
            await shownRecorder.wait { $0.successPath != nil }

            var large = ImageRequest(url: fixture.url("/a.png"), targetPixelSize: PixelSize(width: 160, height: 120))
            large.urlRequest.setValue("1", forHTTPHeaderField: "X-Second") // held by the server
            let loader = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            loader.load(large)
            #expect(loader.phase.isLoading)
            #expect(loader.previousResponse(for: large)?.image.pixelSize == PixelSize(width: 32, height: 24))
            loader.cancel()
            #expect(loader.previousResponse(for: large) == nil, "cancelled: .empty, nothing shown")
            gate.open()
        }
    }

    @Test("a response that varies has no copy for display: another variant never shows it")
    func varyingResponseHasNoDisplayCopy() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", headers: ["Cache-Control": "no-cache", "ETag": "\"v1\"", "Vary": "X-Lang"])
            var french = ImageRequest(url: fixture.url("/a.png"))
            french.urlRequest.setValue("fr", forHTTPHeaderField: "X-Lang")
            var english = french
            english.urlRequest.setValue("en", forHTTPHeaderField: "X-Lang")
            let pipeline = fixture.makePipeline { $0.synchronousDiskRead = nil }
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: pipeline, scheduler: scheduler)
            let recorder = PhaseRecorder(loader)
            SwiftUIDriver(loader: loader, request: french).appear()
            await recorder.wait { $0.successPath != nil }
            loader.didDisappear()
            scheduler.advance(by: 1)

            let other = ImageLoader(pipeline: pipeline, scheduler: scheduler)
            #expect(Seen(other.phase(for: english)) == .empty)
            #expect(other.previousResponse(for: english) == nil)
        }
    }

    @Test("a cache-only request's first frame reads the disk and asks nothing, even within stale-while-revalidate")
    func cacheOnlyFirstFrameAsksNothing() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", headers: ["Cache-Control": "max-age=0, stale-while-revalidate=600"])
            _ = try await fixture.makePipeline().image(for: ImageRequest(url: fixture.url("/a.png")))
            fixture.server.resetCounters()
            var request = ImageRequest(url: fixture.url("/a.png"))
            request.options.insert(.returnCacheDataDontLoad)
            let response = fixture.makePipeline().firstFrameImage(for: request)
            #expect(response?.source == .disk)
            await Task.yield()
            // A background revalidation would have reached the server within these turns.
            #expect(await eventually({ fixture.server.totalRequestCount > 0 }, rounds: 20_000) == false, "no request")
        }
    }

    @Test("new bytes arriving through another size's revalidation are decoded for this size, the image kept on screen")
    func newBytesThroughAnotherSize() async throws {
        try await withScriptedFixture { fixture throws in
            let view = try await Relaunch.relaunchedView(fixture, .noCache, .small)
            let gate = Gate()
            let changed = ImageFixtures.png(width: 40, height: 30, seed: 9)
            fixture.server.serve("/a.png") { _ in
                await gate.wait()
                return .ok(changed, contentType: "image/png", headers: ["Cache-Control": "no-cache", "ETag": "\"v2\""])
            }
            view.driver.appear() // the stale image, its revalidation held by the server
            var sized = view.driver.request
            sized.targetPixelSize = PixelSize(width: 20, height: 15)
            let laidOut = SwiftUIDriver(loader: view.loader, request: sized)
            #expect(Seen(laidOut.render()) == .success(path: "/a.png", source: .disk))
            view.loader.load(sized)
            let before = view.recorder.seen.count
            gate.open()
            await view.loader.settle()
            view.scheduler.endTurn()
            await view.loader.settle()
            #expect(fixture.server.requestCount(for: "/a.png") == 1, "one request for both sizes")
            #expect(view.loader.phase.response?.image.pixelSize == PixelSize(width: 20, height: 15), "the new bytes at this size")
            #expect(view.loader.phase.response?.isStale == false)
            #expect(!view.recorder.seen.dropFirst(before).contains(.empty), "\(view.recorder.seen)")
        }
    }

    @Test("Low Data Mode's cache only after a relaunch: a large stale image on disk is shown as soon as it is read, nothing asked", arguments: ["no-cache", "max-age=0, stale-while-revalidate=100000"])
    func cacheOnlyLargeEntryShown(cacheControl: String) async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", width: 320, height: 240, headers: ["Cache-Control": cacheControl, "ETag": "\"v1\""])
            var request = ImageRequest(url: fixture.url("/a.png"))
            request.constrainedNetworkPolicy = .cacheOnly
            let launch = fixture.makePipeline()
            _ = try await launch.image(for: request)
            launch.diskCache?.flush()
            fixture.server.resetCounters()
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: fixture.makePipeline { $0.isNetworkConstrained = { true } }, scheduler: scheduler)
            let recorder = PhaseRecorder(loader)
            let view = SwiftUIDriver(loader: loader, request: request)
            #expect(Seen(view.render()) == .empty, "too large for the first frame")
            view.appear()
            await loader.settle()
            scheduler.endTurn()
            #expect(Seen(loader.phase) == .success(path: "/a.png", source: .disk), "\(recorder.seen)")
            #expect(loader.phase.response?.isStale == true)
            #expect(loader.phase.error == nil, "a policy, not a failure")
            #expect(fixture.server.totalRequestCount == 0)
        }
    }
}
