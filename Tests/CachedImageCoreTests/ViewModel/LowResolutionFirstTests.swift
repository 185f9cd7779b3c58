import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import Testing
@_spi(Testing) @testable import CachedImageCore

/// `ImageRequest.lowResolutionURL`: what a view shows while the full image loads, when it
/// arrives, and when it fails.
@Suite("A smaller image first", .timeLimit(.minutes(1)))
@MainActor
struct LowResolutionFirstTests {
    enum Shown: Equatable {
        case placeholder
        case thumbnail(error: Bool)
        case full
        case failure
    }

    /// What the view showed, in order; a test awaits what it expects (no polling).
    @MainActor
    final class ShownRecorder {
        private(set) var values: [Shown] = []
        private var waiters: [(condition: ([Shown]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

        func append(_ value: Shown) {
            values.append(value)
            let ready = waiters.filter { $0.condition(values) }
            waiters.removeAll { $0.condition(values) }
            for waiter in ready { waiter.continuation.resume() }
        }

        /// Returns once `condition` holds for what was shown (the suite's time limit catches a hang).
        func wait(until condition: @escaping ([Shown]) -> Bool) async {
            if condition(values) { return }
            await withCheckedContinuation { waiters.append((condition, $0)) }
        }
    }

    private func record(_ loader: ImageLoader, thumbnail: URL) -> ShownRecorder {
        let shown = ShownRecorder()
        loader.onChange = { [weak loader] _ in
            guard let loader else { return }
            switch loader.shownPhase(loader.phase) {
            case .success(let response) where response.request.url == thumbnail:
                shown.append(.thumbnail(error: response.revalidationError != nil))
            case .success: shown.append(.full)
            case .empty, .loading: shown.append(.placeholder)
            case .failure: shown.append(.failure)
            }
        }
        return shown
    }

    private func request(_ fixture: ScriptedFixture) -> ImageRequest {
        var request = ImageRequest(url: fixture.url("/full.png"))
        request.lowResolutionURL = fixture.url("/thumb.png")
        return request
    }

    @Test("the thumbnail shows while the full image downloads, then the full image replaces it with no placeholder between")
    func thumbnailThenFull() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/full.png", until: gate)
            fixture.servePNG("/thumb.png", width: 16, height: 12)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: ManualScheduler(clock: fixture.clock))
            let shown = record(loader, thumbnail: fixture.url("/thumb.png"))
            loader.load(request(fixture))
            await shown.wait { $0.contains(.thumbnail(error: false)) }
            #expect(loader.shownPhase(loader.phase).response?.isPreview == true, "shown as a preview")
            gate.open()
            await loader.settle()
            #expect(shown.values == [.placeholder, .thumbnail(error: false), .full])
            #expect(loader.phase.response?.request.url == fixture.url("/full.png"))
            #expect(loader.phase.response?.isPreview == false)
        }
    }

    @Test("a thumbnail already in memory shows at once, in the load's own turn")
    func thumbnailFromMemory() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/full.png", until: gate)
            fixture.servePNG("/thumb.png", width: 16, height: 12)
            let pipeline = fixture.makePipeline()
            _ = try await pipeline.image(for: ImageRequest(url: fixture.url("/thumb.png")))
            let loader = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            #expect(loader.previousResponse(for: request(fixture))?.request.url == fixture.url("/thumb.png"), "the first body, before onAppear")
            loader.load(request(fixture))
            #expect(loader.shownPhase(loader.phase).response?.request.url == fixture.url("/thumb.png"))
            gate.open()
            await loader.settle()
            #expect(loader.phase.response?.request.url == fixture.url("/full.png"))
            #expect(fixture.server.requestCount(for: "/thumb.png") == 1)
        }
    }

    @Test("when the full image fails, the thumbnail stays with the error beside it; retry asks for the full image again")
    func failureKeepsTheThumbnail() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.server.serve("/full.png") { _ in
                await gate.wait()
                return .status(404)
            }
            fixture.servePNG("/thumb.png", width: 16, height: 12)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: ManualScheduler(clock: fixture.clock))
            let shown = record(loader, thumbnail: fixture.url("/thumb.png"))
            loader.load(request(fixture))
            await shown.wait { $0.contains(.thumbnail(error: false)) }
            gate.open()
            await loader.settle()
            #expect(shown.values.last == .thumbnail(error: true))
            guard case .failure = loader.phase else {
                Issue.record("the load's own state is a failure: only what the view shows keeps the thumbnail")
                return
            }
            #expect(!shown.values.contains(.failure))

            fixture.servePNG("/full.png", width: 64, height: 48)
            let beforeRetry = shown.values.count
            loader.retry()
            await loader.settle()
            #expect(shown.values.last == .full)
            #expect(!shown.values.dropFirst(beforeRetry).contains(.placeholder), "the thumbnail stays on screen while the full image is asked again")
            #expect(fixture.server.requestCount(for: "/full.png") == 2)
        }
    }

    @Test("a full image that arrives first is never replaced by the late thumbnail")
    func fullFirst() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.servePNG("/full.png", width: 64, height: 48)
            fixture.serveHeldPNG("/thumb.png", until: gate)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: ManualScheduler(clock: fixture.clock))
            let shown = record(loader, thumbnail: fixture.url("/thumb.png"))
            loader.load(request(fixture))
            await shown.wait { $0.contains(.full) }
            gate.open()
            await loader.settle()
            #expect(shown.values == [.placeholder, .full])
        }
    }

    @Test("a failed full image with its thumbnail kept is not asked again on each return (away past the grace period, back)")
    func failureIsNotRestartedOnReturn() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/full.png", .status(404))
            fixture.servePNG("/thumb.png", width: 16, height: 12)
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: scheduler)
            let shown = record(loader, thumbnail: fixture.url("/thumb.png"))
            loader.didAppear()
            loader.load(request(fixture))
            await loader.settle()
            await shown.wait { $0.last == .thumbnail(error: true) }
            let before = shown.values.count
            for _ in 0..<3 {
                loader.didDisappear()
                scheduler.advance(by: 5)
                loader.didAppear()
                loader.load(request(fixture))
                await loader.settle()
            }
            #expect(fixture.server.requestCount(for: "/full.png") == 1, "a 404 stays a failure: no request on each return")
            #expect(shown.values.dropFirst(before).allSatisfy { $0 == .thumbnail(error: true) }, "no load started again, no placeholder")
            #expect(shown.values.last == .thumbnail(error: true))
            guard case .failure = loader.phase else {
                Issue.record("still the load's failure")
                return
            }
        }
    }

    @Test("the grid's thumbnail, shown at another size, shows at once in the detail view")
    func thumbnailAtAnotherSize() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/full.png", until: gate)
            fixture.servePNG("/thumb.png", width: 64, height: 48)
            let pipeline = fixture.makePipeline()
            let grid = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            grid.didAppear()
            grid.load(ImageRequest(url: fixture.url("/thumb.png"), targetPixelSize: PixelSize(width: 32, height: 24)))
            await grid.settle()
            #expect(grid.phase.response != nil)

            let detail = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            detail.didAppear()
            var full = request(fixture)
            full.targetPixelSize = PixelSize(width: 640, height: 480)
            detail.load(full)
            let shownNow = detail.shownPhase(detail.phase).response
            #expect(shownNow?.request.url == fixture.url("/thumb.png"), "in the load's own turn")
            #expect(shownNow?.isPreview == true)
            gate.open()
            await detail.settle()
            #expect(detail.phase.response?.request.url == fixture.url("/full.png"))
            #expect(fixture.server.requestCount(for: "/thumb.png") == 1, "the thumbnail was not asked again")
        }
    }

    @Test("the thumbnail's request keeps the full request's headers, size and processors, and none of what only the full image asks")
    func thumbnailRequest() throws {
        var urlRequest = URLRequest(url: URL(string: "https://example.com/full.jpg")!)
        urlRequest.setValue("Bearer token", forHTTPHeaderField: "Authorization")
        var full = ImageRequest(
            urlRequest: urlRequest, priority: .high, targetSize: CGSize(width: 100, height: 50), contentMode: .aspectFit,
            options: [.reloadIgnoringLocalCacheData, .skipFailureCache, .showProgressivePreviews, .pinOnDisk, .returnCacheDataDontLoad]
        )
        full.lowResolutionURL = URL(string: "https://example.com/thumb.jpg")
        let low = ImageLoader.lowResolutionRequest(for: full)
        #expect(low != nil)
        #expect(low?.url == URL(string: "https://example.com/thumb.jpg"))
        #expect(low?.urlRequest.value(forHTTPHeaderField: "Authorization") == "Bearer token")
        #expect(low?.cacheKey == "https://example.com/thumb.jpg")
        #expect(low?.targetSize == CGSize(width: 100, height: 50))
        #expect(low?.targetPixelSize == full.targetPixelSize && low?.targetPixelSize != nil, "sized in pixels as the full request is")
        #expect(low?.contentMode == .aspectFit)
        #expect(low?.priority == .high)
        #expect(low?.options == ImageRequest.Options.returnCacheDataDontLoad, "offline stays offline; a reload, a pin or previews are the full image's")
        #expect(low?.lowResolutionURL == nil)

        var elsewhere = full
        elsewhere.lowResolutionURL = URL(string: "https://cdn.example.net/thumb.jpg")
        #expect(ImageLoader.lowResolutionRequest(for: elsewhere)?.urlRequest.value(forHTTPHeaderField: "Authorization") == nil, "a token never goes to another host")
        var directives = full
        directives.urlRequest.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        directives.urlRequest.setValue("no-cache", forHTTPHeaderField: "Pragma")
        let withoutDirectives = ImageLoader.lowResolutionRequest(for: directives)?.urlRequest
        #expect(withoutDirectives?.value(forHTTPHeaderField: "Cache-Control") == nil && withoutDirectives?.value(forHTTPHeaderField: "Pragma") == nil)

        var same = full
        same.lowResolutionURL = full.url
        #expect(ImageLoader.lowResolutionRequest(for: same) == nil)
    }

    @Test("the thumbnail's load follows the view: its priority drops when the view leaves, and comes back with it")
    func thumbnailPriorityFollowsTheView() async throws {
        try await withScriptedFixture { fixture throws in
            let fullGate = Gate()
            let thumbGate = Gate()
            fixture.serveHeldPNG("/full.png", until: fullGate)
            fixture.serveHeldPNG("/thumb.png", until: thumbGate)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: ManualScheduler(clock: fixture.clock))
            loader.didAppear()
            loader.load(request(fixture))
            let thumbnail = try #require(loader.lowResolutionTask)
            #expect(thumbnail.priority == .normal)
            loader.didDisappear()
            #expect(thumbnail.priority == loader.task?.priority)
            #expect(thumbnail.priority < .normal)
            loader.didAppear()
            #expect(thumbnail.priority == .normal)
            thumbGate.open()
            fullGate.open()
            await loader.settle()
        }
    }

    @Test("UIKit: a view showing the thumbnail and laid out larger loads the full image at the larger size (a preview covers no size)")
    func thumbnailCoversNoSize() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/full.png", until: gate)
            fixture.servePNG("/thumb.png", width: 16, height: 12)
            let controller = ImageViewLoadingController(pipeline: fixture.makePipeline(), scheduler: ManualScheduler(clock: fixture.clock))
            let recorder = ImageViewLoadingControllerTests.Recorder(controller)
            controller.setRequest(request(fixture), fittingWidth: 20, height: 15, scale: 1)
            try await recorder.wait { $0.last == .image(path: "/thumb.png", animated: false) }
            controller.viewDidLayout(width: 40, height: 30, scale: 1)
            #expect(controller.request?.targetPixelSize == PixelSize(width: 40, height: 30), "the full image is due at the new size")
            gate.open()
            try await recorder.wait { $0.last?.isImage(path: "/full.png") == true }
        }
    }

    @Test("a thumbnail still coming after the full image failed follows the view: lower off screen, back with it; stopped past the grace period, asked again on return")
    func thumbnailAfterFailureFollowsTheView() async throws {
        try await withScriptedFixture { fixture throws in
            let thumbGate = Gate()
            fixture.server.serve("/full.png", .status(404))
            fixture.serveHeldPNG("/thumb.png", until: thumbGate)
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: scheduler)
            let shown = record(loader, thumbnail: fixture.url("/thumb.png"))
            loader.didAppear()
            loader.load(request(fixture))
            await shown.wait { $0.last == .failure }
            let thumbnail = try #require(loader.lowResolutionTask)
            loader.didDisappear()
            #expect(thumbnail.priority < .normal)
            loader.didAppear()
            #expect(thumbnail.priority == .normal, "back on screen within the grace period")
            loader.didDisappear()
            scheduler.advance(by: 5)
            #expect(loader.lowResolutionTask == nil, "stopped past the grace period")
            loader.didAppear()
            #expect(loader.lowResolutionTask != nil, "asked again on return")
            thumbGate.open()
            await shown.wait { $0.last == .thumbnail(error: true) }
        }
    }

    @Test("the same image at another size in memory is shown before the thumbnail (sharper, and UIKit shows it too)")
    func otherSizeBeforeThumbnail() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/full.png", width: 64, height: 48)
            fixture.servePNG("/thumb.png", width: 16, height: 12)
            let pipeline = fixture.makePipeline { $0.diskCacheDirectory = nil } // the detail's own image comes from the network
            let grid = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            grid.load(ImageRequest(url: fixture.url("/full.png"), targetPixelSize: PixelSize(width: 32, height: 24)))
            await grid.settle()
            _ = try await pipeline.image(for: ImageRequest(url: fixture.url("/thumb.png")))
            // Held now, so the detail view's own decode waits.
            let gate = Gate()
            fixture.serveHeldPNG("/full.png", until: gate)
            let controller = ImageViewLoadingController(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            controller.setRequest(request(fixture), fittingWidth: 64, height: 48, scale: 1)
            guard case .image(let response, _) = controller.display else {
                Issue.record("an image at once, not \(controller.display)")
                return
            }
            #expect(response.request.url == fixture.url("/full.png") && response.isPreview, "the grid's copy of the same image")
            gate.open()
            await controller.loader.settle()
        }
    }
}

extension ImageViewLoadingControllerTests.Shown {
    func isImage(path: String) -> Bool {
        if case .image(path, _) = self { return true }
        return false
    }
}
