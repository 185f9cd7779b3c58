import Foundation
import ImageFixtures
import Testing
@_spi(Testing) @testable import CachedImageCore

/// The sequence a custom view over `CachedImageModel` drives (`loadImage(_:into:)`): its body
/// reads the loader's current phase (no lookup of its own), then `onAppear` (appear, load),
/// `.task(id:)` (load), `onDisappear`. The model publishes one change per ``ImageLoader/onChange``.
@Suite("CachedImageModel: a custom view's lifecycle", .timeLimit(.minutes(1)))
@MainActor
struct CustomViewModelLifecycleTests {
    private func customView(_ loader: ImageLoader, _ request: ImageRequest) -> SwiftUIDriver {
        SwiftUIDriver(loader: loader, request: request, rendersRequest: false)
    }

    @Test("a memory hit is published once, from onAppear, with no loading step and no request")
    func memoryHit() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let pipeline = fixture.makePipeline()
            _ = try await pipeline.image(for: ImageRequest(url: fixture.url("/a.png")))
            let loader = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            let recorder = PhaseRecorder(loader)
            let view = customView(loader, ImageRequest(url: fixture.url("/a.png")))
            #expect(view.render().response == nil, "the model knows no request before onAppear")
            view.appear()
            #expect(recorder.seen == [.success(path: "/a.png", source: .memory)])
            for swap in 0..<6 { view.branchSwap(animated: swap.isMultiple(of: 2)) }
            #expect(recorder.seen.count == 1)
            #expect(fixture.server.totalRequestCount == 1)
        }
    }

    @Test("a download: loading then success, never reloaded by branch swaps in either order")
    func download() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: ManualScheduler(clock: fixture.clock))
            let recorder = PhaseRecorder(loader)
            let view = customView(loader, ImageRequest(url: fixture.url("/a.png")))
            view.appear()
            await recorder.wait { $0.successPath != nil }
            for swap in 0..<10 { view.branchSwap(animated: swap.isMultiple(of: 2)) }
            #expect(recorder.seen.filter(\.isLoading).count == 1)
            #expect(recorder.seen.last == .success(path: "/a.png", source: .network))
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("a failure stays through re-renders and swaps; retry() asks the server again")
    func failure() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/missing.png", .status(404))
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: ManualScheduler(clock: fixture.clock))
            let recorder = PhaseRecorder(loader)
            let view = customView(loader, ImageRequest(url: fixture.url("/missing.png")))
            view.appear()
            await recorder.wait { $0.isFailure }
            for swap in 0..<10 { view.branchSwap(animated: swap.isMultiple(of: 2)) }
            #expect(fixture.server.requestCount(for: "/missing.png") == 1)
            let failures = recorder.seen.count
            loader.retry()
            await recorder.wait(from: failures) { $0.isFailure }
            #expect(fixture.server.requestCount(for: "/missing.png") == 2)
        }
    }

    @Test("a changed URL shows the new image, keeping the previous one meanwhile only when asked", arguments: [false, true])
    func changedURL(keepsPrevious: Bool) async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let gate = Gate()
            fixture.serveHeldPNG("/b.png", until: gate)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: ManualScheduler(clock: fixture.clock))
            loader.keepsPreviousImage = keepsPrevious
            let recorder = PhaseRecorder(loader)
            customView(loader, ImageRequest(url: fixture.url("/a.png"))).appear()
            await recorder.wait { $0.successPath == "/a.png" }

            // `.task(id:)` runs again with the new request; the view stays on screen.
            let next = ImageRequest(url: fixture.url("/b.png"))
            loader.load(next)
            #expect(loader.phase.isLoading)
            #expect((loader.previousResponse?.request.url?.path) == (keepsPrevious ? "/a.png" : nil))
            gate.open()
            await recorder.wait { $0.successPath == "/b.png" }
            #expect(loader.previousResponse == nil)
        }
    }

    @Test("off screen past the grace period the image is let go; back on screen it returns from memory, no request")
    func offscreenAndBack() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: scheduler)
            let recorder = PhaseRecorder(loader)
            let view = customView(loader, ImageRequest(url: fixture.url("/a.png")))
            view.appear()
            await recorder.wait { $0.successPath != nil }
            loader.didDisappear()
            scheduler.advance(by: 1)
            #expect(loader.phase.response == nil, "let go off screen")
            view.appear()
            #expect(loader.phase.response?.source == .memory)
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }
}
