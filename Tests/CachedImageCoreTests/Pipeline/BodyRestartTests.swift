import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import Testing
@testable import CachedImageCore

/// A download retried after its connection dropped, from a server that does not take ranges:
/// the second body starts from its first byte, so what the job's subscribers were handed of
/// the first is void. They are told (``JobUpdate/restarted``) before the new bytes, never handed
/// two bodies end to end (a progressive preview or the size read from such a mix is garbage).
@Suite("A body that starts over is announced")
struct BodyRestartTests {
    /// Sends the head and the first half of the body, then drops the connection; the next
    /// request gets the whole body.
    private final class DropsOnceLoader: StreamingDataLoading, @unchecked Sendable {
        let body: Data
        private let calls = Locked(0)

        init(body: Data) { self.body = body }

        func loadData(for request: URLRequest, progress: @escaping @Sendable (Int64, Int64?) -> Void) async throws -> (Data, URLResponse) {
            (body, response(for: request))
        }

        func load(
            _ request: URLRequest, limits: DataLoadLimits, priority: DataLoadPriority,
            progress: @escaping @Sendable (Int64, Int64?) -> Void, received: @escaping @Sendable (Data) -> Void,
            head: @escaping @Sendable (URLResponse) -> Void, interrupted: @escaping @Sendable (Data) -> Void
        ) async throws -> DataLoadResponse {
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            head(response(for: request))
            if call == 1 {
                received(body.prefix(body.count / 2))
                throw URLError(.networkConnectionLost)
            }
            received(body.prefix(body.count / 2))
            received(body.dropFirst(body.count / 2))
            return DataLoadResponse(data: body, response: response(for: request))
        }

        private func response(for request: URLRequest) -> URLResponse {
            HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [
                "Content-Type": "image/png", "Content-Length": String(body.count), "Cache-Control": "max-age=60",
            ])!
        }
    }

    @Test("the subscribers hear of the restart before the second body; the bytes after it are one whole body")
    func restartAnnounced() async throws {
        try await withScriptedFixture { fixture in
            let png = ImageFixtures.png(width: 64, height: 48, seed: 9)
            let pipeline = fixture.makePipeline {
                $0.dataLoader = DropsOnceLoader(body: png)
                $0.retryPolicy = .init(maximumRetries: 1, sleep: { _ in })
            }
            let events = Locked<[String]>([])
            let handed = Locked(Data())
            let request = ImageRequest(url: fixture.url("/photo.png"))
            let subscription = pipeline.jobs.dataSubscription(
                request, url: fixture.url("/photo.png"), priority: .normal, lookup: nil, progress: nil,
                updates: { update in
                    switch update {
                    case .bytes(let chunk):
                        events.withLock { $0.append("bytes") }
                        handed.withLock { $0.append(chunk) }
                    case .restarted:
                        events.withLock { $0.append("restarted") }
                        handed.withLock { $0 = Data() }
                    case .imageSize(let size):
                        events.withLock { $0.append("size \(size)") }
                    case .preview, .stale:
                        break
                    }
                }
            )
            let response = try await subscription.value()
            #expect(response.data == png)
            #expect(events.withLock { $0 } == ["bytes", "size 64x48", "restarted", "bytes", "bytes"])
            #expect(handed.withLock { $0 } == png, "after the restart, the subscribers hold exactly one body")
        }
    }
}
