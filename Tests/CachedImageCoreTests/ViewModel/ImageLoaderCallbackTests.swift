import Foundation
import Testing
import ImageFixtures
@_spi(Testing) @testable import CachedImageCore

/// The callbacks behind `CachedAsyncImage`'s `.onStart`, `.onSuccess`, `.onFailure`,
/// `.onProgress` and `.fade(duration:)`: each event fires once, whatever SwiftUI repeats.
@Suite("ImageLoader: callbacks fire once", .timeLimit(.minutes(1)))
@MainActor
struct ImageLoaderCallbackTests {
    @MainActor
    final class Counts {
        var starts = 0
        var successes: [ImageResponse.Source] = []
        var failures = 0
        var progress = 0

        func attach(to loader: ImageLoader) {
            loader.callbacks = ImageLoader.Callbacks(
                onStart: { [unowned self] _ in starts += 1 },
                onSuccess: { [unowned self] response in successes.append(response.source) },
                onFailure: { [unowned self] _ in failures += 1 },
                onProgress: { [unowned self] _ in progress += 1 }
            )
        }
    }

    @Test("a network load: one start, one success, through branch swaps and a release off screen; it fades in")
    func networkLoad() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: scheduler)
            let counts = Counts()
            counts.attach(to: loader)
            let recorder = PhaseRecorder(loader)
            let view = SwiftUIDriver(loader: loader, request: ImageRequest(url: fixture.url("/a.png")))
            view.appear()
            await recorder.wait { $0.successPath != nil }
            #expect(ImageLoader.fadesIn(to: loader.phase))

            for swap in 0..<10 { view.branchSwap(animated: swap.isMultiple(of: 2)) }
            loader.didDisappear()
            scheduler.advance(by: 1) // let go
            view.appear()            // back from memory
            #expect(!ImageLoader.fadesIn(to: loader.phase), "a memory hit appears at once")
            scheduler.endTurn()
            #expect(counts.starts == 1)
            #expect(counts.successes == [.network])
            #expect(counts.failures == 0)
        }
    }

    @Test("a first-frame memory hit reports success once, after the render, never from inside it")
    func firstFrameHit() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let pipeline = fixture.makePipeline()
            let request = ImageRequest(url: fixture.url("/a.png"))
            _ = try await pipeline.image(for: request)
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: pipeline, scheduler: scheduler)
            let counts = Counts()
            counts.attach(to: loader)
            let view = SwiftUIDriver(loader: loader, request: request)
            view.render()
            #expect(counts.successes.isEmpty, "nothing runs inside body")
            view.appear()
            view.render()
            scheduler.endTurn()
            #expect(counts.successes == [.memory])
            #expect(counts.starts == 0)
        }
    }

    @Test("a failure: one call through swaps; retry starts again and reports again")
    func failureOnce() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/a.png", .transportFailure())
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: scheduler)
            let counts = Counts()
            counts.attach(to: loader)
            let recorder = PhaseRecorder(loader)
            let view = SwiftUIDriver(loader: loader, request: ImageRequest(url: fixture.url("/a.png")))
            view.appear()
            await recorder.wait { $0.isFailure }
            for swap in 0..<10 { view.branchSwap(animated: swap.isMultiple(of: 2)) }
            #expect(counts.failures == 1)
            #expect(counts.starts == 1)

            fixture.servePNG("/a.png")
            let before = recorder.seen.count
            loader.retry()
            await recorder.wait(from: before) { $0.successPath != nil }
            #expect(counts.starts == 2)
            #expect(counts.successes == [.network])
        }
    }

    @Test("onProgress turns progress on for a view that does not otherwise report it")
    func progressCallback() async throws {
        try await withScriptedFixture { fixture throws in
            let png = ImageFixtures.png(width: 256, height: 256, seed: 3)
            let gate = Gate()
            fixture.server.serve("/large.png") { _ in
                await gate.wait()
                return ScriptedResponse(headers: ["Content-Type": "image/png"], body: png, chunkSize: 4_096)
            }
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: scheduler)
            loader.reportsProgress = false
            let counts = Counts()
            counts.attach(to: loader)
            loader.load(ImageRequest(url: fixture.url("/large.png")))
            scheduler.advance(by: 1)
            gate.open()
            _ = await eventuallyOnMain { counts.progress > 0 || loader.phase.response != nil }
            await loader.settle()
            #expect(counts.progress >= 1)
            #expect(counts.successes == [.network])
        }
    }
}
