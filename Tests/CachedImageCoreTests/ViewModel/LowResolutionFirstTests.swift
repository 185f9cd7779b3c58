import Foundation
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

    private func record(_ loader: ImageLoader, thumbnail: URL) -> Recorder<Shown> {
        let shown = Recorder<Shown>()
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
            #expect(await eventually { shown.values.contains(.thumbnail(error: false)) })
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
            #expect(await eventually { shown.values.contains(.thumbnail(error: false)) })
            gate.open()
            await loader.settle()
            #expect(shown.values.last == .thumbnail(error: true))
            #expect(loader.phase.error != nil)
            #expect(!shown.values.contains(.failure))

            fixture.servePNG("/full.png", width: 64, height: 48)
            loader.retry()
            await loader.settle()
            #expect(shown.values.last == .full)
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
            #expect(await eventually { shown.values.contains(.full) })
            gate.open()
            await loader.settle()
            #expect(shown.values == [.placeholder, .full])
        }
    }
}
