import Foundation
import Testing
@testable import CachedImageCore

/// ``ImageTask/cancel()``'s promise: the response then throws `CancellationError`, on every
/// path, a memory hit included (it used to finish before the cancellation reached it).
@Suite("ImageTask: a cancelled task never delivers", .timeLimit(.minutes(1)))
struct ImageTaskCancellationTests {
    enum Path: String, CaseIterable, Sendable { case memory, disk, network }

    @Test("cancelled right after imageTask(with:) returns: CancellationError every time", arguments: Path.allCases)
    func cancelledAtOnce(path: Path) async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", headers: ["Cache-Control": "max-age=3600"])
            let request = ImageRequest(url: fixture.url("/a.png"))
            let warm = fixture.makePipeline()
            _ = try await warm.image(for: request)
            warm.diskCache?.flush()
            for _ in 0..<200 {
                let pipeline: ImagePipeline
                switch path {
                case .memory: pipeline = warm
                case .disk: pipeline = fixture.makePipeline()
                case .network: pipeline = fixture.makePipeline { $0.diskCacheDirectory = nil }
                }
                let task = pipeline.imageTask(with: request)
                task.cancel()
                await #expect(throws: CancellationError.self) { try await task.response }
            }
        }
    }

    @Test("a cancelled memory hit counts as cancelled, not completed")
    func cancelledMemoryHitCounts() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", headers: ["Cache-Control": "max-age=3600"])
            let request = ImageRequest(url: fixture.url("/a.png"))
            let pipeline = fixture.makePipeline()
            _ = try await pipeline.image(for: request)
            pipeline.resetStatistics()
            for _ in 0..<50 {
                let task = pipeline.imageTask(with: request)
                task.cancel()
                _ = try? await task.response
            }
            #expect(pipeline.statistics.cancellations == 50)
        }
    }
}
