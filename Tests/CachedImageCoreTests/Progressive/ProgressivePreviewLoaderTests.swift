import Foundation
import Testing
@testable import CachedImageCore

/// Previews need a `DataLoading` that hands the body's chunks: one that returns whole bodies
/// (the protocol's default `load(_:limits:priority:progress:received:)`) gives none, and the
/// image loads as always.
@Suite("Progressive previews and loaders without chunks")
struct ProgressivePreviewLoaderTests {
    @Test("a loader that returns whole bodies: no preview, the final image")
    func noChunksNoPreviews() async throws {
        try await withScriptedFixture { fixture throws in
            let jpeg = try ProgressiveFixtures.progressive()
            fixture.server.serve("/p.jpg", ScriptedResponse(headers: ["Content-Type": "image/jpeg"], body: jpeg, chunkSize: 1_000))
            let pipeline = fixture.makePipeline { $0.progressivePreviewPolicy = ProgressivePreviewPolicy(maximumPreviewCount: 10, minimumInterval: 0) }
            let previews = Recorder<Int>()
            let progress = Recorder<Int64>()
            let task = pipeline.imageTask(
                with: ImageRequest(url: fixture.url("/p.jpg"), options: [.showProgressivePreviews]),
                progress: { received, _ in progress.append(received) },
                preview: { previews.append($0.image.data?.count ?? 0) }
            )
            let response = try await task.response
            #expect(response.image.data == jpeg && !response.isPreview)
            #expect(progress.values.count > 1) // the body did arrive in pieces, but only as counts
            #expect(previews.values.isEmpty)
        }
    }
}
