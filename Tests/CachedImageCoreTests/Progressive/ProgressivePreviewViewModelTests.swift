import Foundation
import LoopbackServer
import Testing
@_spi(Testing) @testable import CachedImageCore

/// What views show of progressive previews: `ImageLoader` (SwiftUI's model) and
/// `ImageViewLoadingController` (UIKit's), against the loopback server sending a real
/// progressive JPEG in chunks.
@Suite("Progressive previews in the view models", .timeLimit(.minutes(1)))
@MainActor
struct ProgressivePreviewViewModelTests {
    /// What a view shows after each change, reduced to comparable values.
    enum Shown: Equatable {
        case placeholder
        case preview(bytes: Int)
        case image(preview: Bool, animated: Bool)
        case final
        case failure
    }

    @available(macOS 14.0, *)
    private func start(_ path: String) async throws -> (PipelineFixture, ImagePipeline) {
        let fixture = try await PipelineFixture.start()
        fixture.server.serve(path, LoopbackResponse(
            headers: ["Content-Type": "image/jpeg", "Cache-Control": "max-age=3600"],
            body: try ProgressiveFixtures.progressive(), chunkSize: 1_000, chunkDelay: .milliseconds(3)
        ))
        let pipeline = fixture.makePipeline { $0.progressivePreviewPolicy = ProgressivePreviewPolicy(maximumPreviewCount: 10, minimumInterval: 0) }
        return (fixture, pipeline)
    }

    @Test("previews show as successes flagged preview; the final image replaces the last one with nothing in between")
    @available(macOS 14.0, *)
    func loaderShowsPreviewsThenFinal() async throws {
        let (fixture, pipeline) = try await start("/p.jpg")
        defer { Task { await fixture.tearDown() } }
        let loader = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
        var shown: [Shown] = []
        loader.onChange = { [weak loader] _ in
            guard let loader else { return }
            switch loader.shownPhase(loader.phase) {
            case .success(let response) where response.isPreview: shown.append(.preview(bytes: response.image.data?.count ?? 0))
            case .success: shown.append(.final)
            case .empty, .loading: shown.append(.placeholder)
            case .failure: shown.append(.failure)
            }
        }
        loader.load(ImageRequest(url: fixture.url("/p.jpg"), options: [.showProgressivePreviews]))
        await loader.settle()

        #expect(shown.last == .final)
        let firstPreview = try #require(shown.firstIndex { if case .preview = $0 { true } else { false } })
        // From the first preview on, something is always on screen: previews, then the final image.
        #expect(!shown[firstPreview...].contains(.placeholder))
        #expect(shown.filter { $0 == .final }.count == 1)
        #expect(loader.preview == nil)
        // Previews only grow.
        let sizes = shown.compactMap { if case .preview(let bytes) = $0 { bytes } else { nil } }
        #expect(sizes == sizes.sorted())
        // The phase itself stays `.loading` while previews show (callbacks and retry rules are unchanged).
        #expect(pipeline.memoryCachedImage(for: ImageRequest(url: fixture.url("/p.jpg"), options: [.showProgressivePreviews]))?.data == (try ProgressiveFixtures.progressive()))
    }

    @Test("a memory hit shows the final image in the first frame: no preview, no placeholder")
    @available(macOS 14.0, *)
    func memoryHitHasNoPreview() async throws {
        let (fixture, pipeline) = try await start("/p.jpg")
        defer { Task { await fixture.tearDown() } }
        let request = ImageRequest(url: fixture.url("/p.jpg"), options: [.showProgressivePreviews])
        _ = try await pipeline.image(for: request)
        let loader = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
        let phase = loader.phase(for: request)
        #expect(phase.response?.source == .memory && phase.response?.isPreview == false)
        #expect(loader.preview == nil)
    }

    @Test("a preview of a replaced request is never shown")
    @available(macOS 14.0, *)
    func replacedRequest() async throws {
        let (fixture, pipeline) = try await start("/p.jpg")
        defer { Task { await fixture.tearDown() } }
        fixture.servePNG("/other.png")
        let loader = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
        var previewsForOther = 0
        loader.onChange = { [weak loader] _ in
            if let preview = loader?.preview, preview.request.url?.path != "/p.jpg" { previewsForOther += 1 }
        }
        loader.load(ImageRequest(url: fixture.url("/p.jpg"), options: [.showProgressivePreviews]))
        while loader.preview == nil, loader.phase.isLoading { try await Task.sleep(for: .milliseconds(1)) }
        loader.load(ImageRequest(url: fixture.url("/other.png"), options: [.showProgressivePreviews]))
        #expect(loader.preview == nil)
        await loader.settle()
        #expect(loader.phase.response?.request.url?.path == "/other.png")
        #expect(loader.preview == nil && previewsForOther == 0)
    }

    @Test("the UIKit controller shows previews without a transition, then the final image")
    @available(macOS 14.0, *)
    func controllerShowsPreviews() async throws {
        let (fixture, pipeline) = try await start("/p.jpg")
        defer { Task { await fixture.tearDown() } }
        let controller = ImageViewLoadingController(pipeline: pipeline)
        var shown: [Shown] = []
        controller.onDisplay = { display in
            switch display {
            case .placeholder: shown.append(.placeholder)
            case .image(let response, let animated): shown.append(.image(preview: response.isPreview, animated: animated))
            case .failure: shown.append(.failure)
            }
        }
        controller.setRequest(ImageRequest(url: fixture.url("/p.jpg"), options: [.showProgressivePreviews]))
        await controller.loader.settle()

        #expect(shown.first == .placeholder)
        #expect(shown.last == .image(preview: false, animated: true))
        let previews = shown.filter { $0 == .image(preview: true, animated: false) }
        #expect(!previews.isEmpty)
        #expect(shown.allSatisfy { $0 != .image(preview: true, animated: true) })
        let firstImage = try #require(shown.firstIndex { $0 != .placeholder })
        #expect(!shown[firstImage...].contains(.placeholder))
    }
}
