import Foundation
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

/// What the resumption tests share: an image, the responses a range-capable route gives, and a
/// first download cut off after some of its bytes.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
enum ResumptionFixture {
    static let path = "/resumable.png"

    /// A photo-sized PNG (random pixels do not compress): large enough to be cut in three.
    static func image(seed: UInt64 = 36) -> Data {
        ImageFixtures.png(width: 160, height: 120, seed: seed)
    }

    /// `body` as a `200` with `headers` (by default a strong `ETag` and `Accept-Ranges: bytes`),
    /// honouring `Range` when `honorsRanges`, and closing the connection after `cutAfter` body
    /// bytes (of the range, for a `206`) when set.
    static func response(
        _ body: Data,
        headers: [String: String] = ["ETag": "\"v1\"", "Accept-Ranges": "bytes"],
        honorsRanges: Bool = true,
        cutAfter: Int? = nil
    ) -> LoopbackResponse {
        var response = LoopbackResponse.ok(body, contentType: "image/png", headers: headers, truncatedAfter: cutAfter)
        response.honorsRanges = honorsRanges
        return response
    }

    /// The `Range` headers of the requests the server received for `path`, in order.
    static func ranges(_ fixture: PipelineFixture, _ path: String = path) -> [String?] {
        fixture.server.requests(for: path).map { $0.header("Range") }
    }

    /// Loads `url` once, expecting the cut: the load fails as truncated and nothing of the image
    /// is in memory or on disk. Returns how many bytes the pipeline kept to resume.
    @discardableResult
    static func loadCut(
        _ pipeline: ImagePipeline, _ url: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Int {
        do {
            let response = try await pipeline.image(for: url)
            Issue.record("expected the cut download to fail, got \(response.image.pixelSize)", sourceLocation: sourceLocation)
        } catch let error as ImagePipeline.Error {
            guard case .truncatedResponse = error else {
                Issue.record("expected truncatedResponse, got \(error)", sourceLocation: sourceLocation)
                return 0
            }
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
        expectNothingServed(pipeline, url, sourceLocation: sourceLocation)
        return pipeline.resumableByteCount(for: ImageRequest(url: url))
    }

    /// Nothing partial is an image anywhere: no memory entry, no disk entry, and a load that
    /// may not use the network finds nothing.
    static func expectNothingServed(_ pipeline: ImagePipeline, _ url: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(pipeline.memoryCachedImage(for: ImageRequest(url: url)) == nil, sourceLocation: sourceLocation)
        ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: nil, sourceLocation: sourceLocation)
    }
}
