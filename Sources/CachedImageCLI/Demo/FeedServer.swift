import Foundation
import LoopbackServer

/// Serves a ``DemoFeed`` from the embedded loopback server with the headers a CDN sends
/// (`Content-Type`, `ETag`, `Last-Modified`, `Cache-Control: public, max-age=…`, a fresh `Date`),
/// after a fixed latency, and counts requests per image.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
final class FeedServer: Sendable {
    let feed: DemoFeed
    private let server: LoopbackServer
    private let counts: Protected<[Int]>

    private init(feed: DemoFeed, server: LoopbackServer) {
        self.feed = feed
        self.server = server
        self.counts = Protected([Int](repeating: 0, count: feed.images.count))
    }

    /// Starts the server and registers every image of `feed`.
    static func start(feed: DemoFeed, latency: Duration, maxAge: Int) async throws -> FeedServer {
        let server: LoopbackServer
        do {
            server = try await LoopbackServer.start()
        } catch {
            throw CLIError("could not start the loopback image server: \(error)")
        }
        let feedServer = FeedServer(feed: feed, server: server)
        let lastModified = HTTPDateFormat.string(from: Date(timeIntervalSinceNow: -86_400))
        for image in feed.images {
            let headers = [
                "Content-Type": image.contentType,
                "ETag": image.etag,
                "Last-Modified": lastModified,
                "Cache-Control": "public, max-age=\(maxAge)",
            ]
            let response = LoopbackResponse(headers: headers, body: image.data, latency: latency)
            let counts = feedServer.counts
            let index = image.index
            server.serve(image.path) { _ in
                counts.withLock { $0[index] += 1 }
                var dated = response
                dated.headers["Date"] = HTTPDateFormat.string(from: Date())
                return dated
            }
        }
        return feedServer
    }

    /// The URL of `image` on this server.
    func url(for image: FeedImage) -> URL {
        server.url(image.path)
    }

    /// Requests received for `image` so far (full and conditional).
    func requestCount(for image: FeedImage) -> Int {
        counts.withLock { $0[image.index] }
    }

    /// Requests received for any path so far.
    var totalRequestCount: Int {
        server.totalRequestCount
    }

    /// Response body bytes sent so far.
    var bytesSent: Int {
        server.bytesSent
    }

    /// Stops the server: from now on its port refuses connections, like a device gone offline.
    func shutdown() async {
        await server.shutdown()
    }
}
