import Foundation
import Testing
import ImageFixtures
@_spi(Testing) @testable import CachedImageCore

/// The view model behind `CachedAsyncImage`, against a real loopback server: what a view shows
/// first, and that a stale request never reaches the screen.
@Suite("ImageLoader: the view model", .timeLimit(.minutes(1)))
@MainActor
struct ImageLoaderTests {
    typealias Seen = PhaseRecorder.Seen

    /// Serves a PNG at `path` that is sent only once `gate` opens.
    private func serveGated(_ fixture: ScriptedFixture, _ path: String, gate: Gate, seed: UInt64 = 7) {
        let png = ImageFixtures.png(width: 32, height: 32, seed: seed)
        fixture.server.serve(path) { _ in
            await gate.wait()
            return .ok(png, contentType: "image/png")
        }
    }

    @Test("a memory hit is .success when load returns, with no .empty or .loading before it")
    func memoryHitIsSynchronous() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let pipeline = fixture.makePipeline()
            let request = ImageRequest(url: fixture.url("/a.png"))
            _ = try await pipeline.image(for: request)

            let loader = ImageLoader(pipeline: pipeline)
            let recorder = PhaseRecorder(loader)
            loader.load(request)

            // No await between load and these checks: the hit was answered synchronously.
            #expect(recorder.seen == [.success(path: "/a.png", source: .memory)])
            #expect(loader.phase.response?.image.pixelSize == PixelSize(width: 64, height: 48))
            #expect(loader.task == nil, "a memory hit starts no pipeline task")
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("phase(for:) renders a memory hit in the first frame, and the following load changes nothing")
    func firstFramePeek() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            fixture.servePNG("/miss.png", seed: 2)
            let pipeline = fixture.makePipeline()
            let request = ImageRequest(url: fixture.url("/a.png"))
            _ = try await pipeline.image(for: request)

            let loader = ImageLoader(pipeline: pipeline)
            let recorder = PhaseRecorder(loader)
            #expect(Seen(loader.phase(for: request)) == .success(path: "/a.png", source: .memory))
            loader.load(request)  // what the view's task does right after the first frame
            #expect(recorder.seen.isEmpty, "the first frame already showed the image: no change to publish")
            #expect(Seen(loader.phase) == .success(path: "/a.png", source: .memory))

            let miss = ImageRequest(url: fixture.url("/miss.png"))
            #expect(Seen(loader.phase(for: miss)) == .empty)
            #expect(Seen(loader.phase) == .success(path: "/a.png", source: .memory), "a miss changes nothing until load")
        }
    }

    @Test("a miss goes .loading then .success from the network")
    func missLoadsFromNetwork() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let loader = ImageLoader(pipeline: fixture.makePipeline())
            let recorder = PhaseRecorder(loader)

            loader.load(ImageRequest(url: fixture.url("/a.png")))
            #expect(recorder.seen == [.loading(completed: 0, total: nil)])
            await recorder.wait { $0.successPath != nil }

            #expect(recorder.seen.first == .loading(completed: 0, total: nil))
            #expect(recorder.seen.last == .success(path: "/a.png", source: .network))
            #expect(recorder.seen.dropLast().allSatisfy { $0.isLoading })
        }
    }

    @Test("a URL change mid-load never delivers the old image, even when the old download completes")
    func urlChangeMidLoad() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            serveGated(fixture, "/old.png", gate: gate)
            fixture.servePNG("/new.png")
            let pipeline = fixture.makePipeline()
            let old = ImageRequest(url: fixture.url("/old.png"))
            // Another view still wants the old image, so its download runs to completion.
            let otherView = pipeline.imageTask(with: old)

            let loader = ImageLoader(pipeline: pipeline)
            let recorder = PhaseRecorder(loader)
            loader.load(old)
            loader.load(ImageRequest(url: fixture.url("/new.png")))
            await recorder.wait { $0.successPath != nil }

            gate.open()
            let oldResponse = try await otherView.response
            #expect(oldResponse.request.url?.path == "/old.png")
            await loader.settle()

            #expect(recorder.seen.compactMap(\.successPath) == ["/new.png"])
            #expect(Seen(loader.phase) == .success(path: "/new.png", source: .network))
        }
    }

    @Test("reused cell: load A, then B before A finishes: only B is ever shown, and A's download is cancelled")
    func reusedCell() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            serveGated(fixture, "/row-a.png", gate: gate)
            fixture.servePNG("/row-b.png")
            let pipeline = fixture.makePipeline()
            let loader = ImageLoader(pipeline: pipeline)
            let recorder = PhaseRecorder(loader)

            loader.load(ImageRequest(url: fixture.url("/row-a.png")))
            loader.load(ImageRequest(url: fixture.url("/row-b.png")))
            await recorder.wait { $0.successPath != nil }
            gate.open()
            await loader.settle()

            #expect(recorder.seen.compactMap(\.successPath) == ["/row-b.png"])
            #expect(!recorder.seen.contains { $0.isFailure }, "the abandoned request is not a failure")
            #expect(pipeline.statistics.cancellations == 1)
            #expect(pipeline.memoryCachedImage(for: ImageRequest(url: fixture.url("/row-a.png"))) == nil,
                    "nobody else wanted A: its work stopped before decoding")
        }
    }

    @Test("cancel returns to .empty; loading the same request again succeeds")
    func cancelThenReload() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            serveGated(fixture, "/a.png", gate: gate)
            let loader = ImageLoader(pipeline: fixture.makePipeline())
            let recorder = PhaseRecorder(loader)
            let request = ImageRequest(url: fixture.url("/a.png"))

            loader.load(request)
            loader.cancel()
            #expect(recorder.seen == [.loading(completed: 0, total: nil), .empty])
            #expect(loader.task == nil)

            gate.open()
            loader.load(request)
            await recorder.wait(from: 2) { $0.successPath != nil }
            await loader.settle()

            #expect(recorder.seen.last == .success(path: "/a.png", source: .network))
            #expect(recorder.seen.compactMap(\.successPath) == ["/a.png"])
            #expect(!recorder.seen.contains { $0.isFailure })
        }
    }

    @Test("a failure is reported with the pipeline's typed error; retry after the server recovers succeeds")
    func failureThenRetry() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/flaky.png", .status(500))
            let loader = ImageLoader(pipeline: fixture.makePipeline())
            let recorder = PhaseRecorder(loader)
            let request = ImageRequest(url: fixture.url("/flaky.png"))

            loader.load(request)
            await recorder.wait { $0.isFailure }
            guard case .badStatusCode(_, let status)? = loader.phase.error as? ImagePipeline.Error else {
                Issue.record("expected badStatusCode, got \(loader.phase)")
                return
            }
            #expect(status == 500)
            loader.load(request)
            #expect(loader.phase.error != nil, "load does not restart a failure (as AsyncImage): only retry() does")
            #expect(fixture.server.requestCount(for: "/flaky.png") == 1)

            fixture.servePNG("/flaky.png")
            let before = recorder.seen.count
            loader.retry()
            await recorder.wait(from: before) { $0.successPath != nil }
            #expect(recorder.seen.last == .success(path: "/flaky.png", source: .network))
            #expect(fixture.server.requestCount(for: "/flaky.png") >= 2)
        }
    }

    @Test("a retry cancelled off screen restarts as a retry when the view comes back, not as the failure remembered a moment ago")
    func retryCancelledOffScreenRestartsAsARetry() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/flaky.png", .status(503))
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), offscreenBehavior: .cancel, scheduler: scheduler)
            let recorder = PhaseRecorder(loader)
            let request = ImageRequest(url: fixture.url("/flaky.png"))
            loader.load(request)
            await recorder.wait { $0.isFailure } // remembered for a while
            let gate = Gate()
            fixture.serveHeldPNG("/flaky.png", until: gate)
            loader.retry()
            #expect(await eventually { fixture.server.requestCount(for: "/flaky.png") == 2 })
            loader.didDisappear()
            scheduler.endTurn() // still off screen when the turn ends: cancelled
            #expect(recorder.seen.last == .empty)
            let before = recorder.seen.count
            loader.didAppear()
            // Either the retry asks the server again, or the remembered 503 comes back at once.
            while fixture.server.requestCount(for: "/flaky.png") < 3, !recorder.seen[before...].contains(where: { $0.isFailure }) {
                await Task.yield()
            }
            let failedAgain = recorder.seen[before...].contains { $0.isFailure }
            #expect(!failedAgain, "the retry came back as the remembered 503")
            gate.open()
            guard !failedAgain else { return }
            await recorder.wait(from: before) { $0.successPath != nil }
            #expect(fixture.server.requestCount(for: "/flaky.png") == 3)
        }
    }

    @Test("leaving the screen lowers the load's priority; coming back restores it")
    func disappearLowersPriority() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            serveGated(fixture, "/a.png", gate: gate)
            let loader = ImageLoader(pipeline: fixture.makePipeline())
            let recorder = PhaseRecorder(loader)
            loader.load(ImageRequest(url: fixture.url("/a.png"), priority: .high))

            #expect(loader.task?.priority == .high)
            loader.didDisappear()
            #expect(loader.task?.priority == .low)
            loader.didAppear()
            #expect(loader.task?.priority == .high)

            gate.open()
            await recorder.wait { $0.successPath != nil }
        }
    }

    @Test("with the .cancel behaviour, leaving the screen cancels and coming back reloads")
    func disappearCancels() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            serveGated(fixture, "/a.png", gate: gate)
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), offscreenBehavior: .cancel, scheduler: scheduler)
            let recorder = PhaseRecorder(loader)
            loader.load(ImageRequest(url: fixture.url("/a.png")))

            loader.didDisappear()
            #expect(recorder.seen == [.loading(completed: 0, total: nil)], "nothing is cancelled before the turn ends")
            scheduler.endTurn()
            #expect(recorder.seen == [.loading(completed: 0, total: nil), .empty])
            gate.open()
            loader.didAppear()
            await recorder.wait(from: 2) { $0.successPath != nil }
            #expect(recorder.seen.last == .success(path: "/a.png", source: .network))
        }
    }

    @Test("keepsPreviousImage keeps the last image available while the next request loads")
    func keepsPreviousImage() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.servePNG("/first.png")
            serveGated(fixture, "/second.png", gate: gate)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), keepsPreviousImage: true)
            let recorder = PhaseRecorder(loader)
            let second = ImageRequest(url: fixture.url("/second.png"))

            loader.load(ImageRequest(url: fixture.url("/first.png")))
            await recorder.wait { $0.successPath != nil }
            #expect(loader.previousResponse(for: second)?.request.url?.path == "/first.png", "before load: the current image")

            let beforeSecond = recorder.seen.count
            loader.load(second)
            #expect(loader.phase.progress != nil)
            #expect(loader.previousResponse?.request.url?.path == "/first.png")
            #expect(loader.previousResponse(for: second)?.request.url?.path == "/first.png")

            gate.open()
            await recorder.wait(from: beforeSecond) { $0.successPath != nil }
            #expect(loader.previousResponse == nil)
            #expect(Seen(loader.phase) == .success(path: "/second.png", source: .network))

            loader.keepsPreviousImage = false
            #expect(loader.previousResponse(for: ImageRequest(url: fixture.url("/first.png"))) == nil)
        }
    }

    @Test("a loader that goes away (its view was destroyed) cancels its load")
    func deallocationCancels() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            serveGated(fixture, "/a.png", gate: gate)
            let pipeline = fixture.makePipeline()
            let events = pipeline.events()

            var loader: ImageLoader? = ImageLoader(pipeline: pipeline)
            loader?.load(ImageRequest(url: fixture.url("/a.png")))
            #expect(loader?.phase.progress != nil)
            loader = nil

            for await event in events {
                if case .taskCancelled(_, let url) = event {
                    #expect(url?.path == "/a.png")
                    break
                }
                if case .taskCompleted = event {
                    Issue.record("the load completed although nobody wanted it")
                    break
                }
            }
            #expect(pipeline.statistics.cancellations == 1)
            gate.open()
        }
    }
}
