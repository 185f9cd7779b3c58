import Foundation
import LoopbackServer
import ToolSupport

/// Serves a ``DemoFeed`` from the embedded loopback server with the headers a CDN sends
/// (`Content-Type`, `ETag`, `Last-Modified`, `Cache-Control: public, max-age=…`, a `Date` read
/// from the demo's simulated clock), after a fixed latency; answers `If-None-Match` with `304`
/// when the ETag still matches, and counts requests, conditional requests and `304`s.
///
/// On day 2 (``setDay(_:)``) the images in ``DemoFeed/dayTwo`` are served with their new bytes
/// and new ETag.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
final class FeedServer: Sendable {
    /// Request counters, per image and in total.
    struct Counters: Sendable {
        var perImage: [Int]
        var conditional = 0
        var notModified = 0
    }

    /// How a view's bytes compare with what the server holds for its URL.
    enum Verdict {
        /// The server's current version.
        case current
        /// An older version of the same URL.
        case outdated
        /// Bytes of another URL.
        case wrong
    }

    let feed: DemoFeed
    private let server: LoopbackServer
    private let counters: Protected<Counters>
    private let day = Protected(1)

    private init(feed: DemoFeed, server: LoopbackServer) {
        self.feed = feed
        self.server = server
        self.counters = Protected(Counters(perImage: [Int](repeating: 0, count: feed.images.count)))
    }

    /// Starts the server and registers every image of `feed`; `Date` headers follow `clock`.
    static func start(feed: DemoFeed, latency: Duration, maxAge: Int, clock: DemoClock) async throws -> FeedServer {
        let server: LoopbackServer
        do {
            server = try await LoopbackServer.start()
        } catch {
            throw CLIError("could not start the loopback image server: \(error)")
        }
        let feedServer = FeedServer(feed: feed, server: server)
        for image in feed.images {
            let index = image.index
            server.serve(image.path) { [feedServer] request in
                let now = clock.now
                let current = feedServer.current(index)
                // Day 1's version was last modified a day before the session; day 2's at the change.
                let lastModified = feedServer.day.current >= 2 && feed.dayTwo[index] != nil
                    ? now.addingTimeInterval(-60) : now.addingTimeInterval(-86_400)
                var headers = [
                    "Content-Type": current.contentType,
                    "ETag": current.etag,
                    "Last-Modified": HTTPDateFormat.string(from: lastModified),
                    "Cache-Control": "public, max-age=\(maxAge)",
                    "Date": HTTPDateFormat.string(from: now),
                ]
                let ifNoneMatch = request.header("If-None-Match")
                let isConditional = ifNoneMatch != nil || request.header("If-Modified-Since") != nil
                let matches = ifNoneMatch.map { value in
                    value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == current.etag }
                } ?? false
                feedServer.counters.withLock { counters in
                    counters.perImage[index] += 1
                    if isConditional { counters.conditional += 1 }
                    if matches { counters.notModified += 1 }
                }
                if matches {
                    headers["Content-Type"] = nil
                    var response = LoopbackResponse.status(304, headers: headers)
                    response.latency = latency
                    response.honorsConditionalRequests = false
                    return response
                }
                var response = LoopbackResponse(headers: headers, body: current.data, latency: latency)
                response.honorsConditionalRequests = false
                return response
            }
        }
        return feedServer
    }

    /// Switches the content the server holds: day 1 (the original feed) or day 2 and later (the
    /// changed images replaced).
    func setDay(_ day: Int) {
        self.day.withLock { $0 = day }
    }

    /// The version of image `index` the server holds now.
    func current(_ index: Int) -> FeedImage {
        if day.current >= 2, let changed = feed.dayTwo[index] { return changed }
        return feed.images[index]
    }

    /// Compares the bytes a view showed for image `index` with what the server holds.
    func verdict(for data: Data, index: Int) -> Verdict {
        if data == current(index).data { return .current }
        if data == feed.images[index].data || data == feed.dayTwo[index]?.data { return .outdated }
        return .wrong
    }

    /// The URL of `image` on this server.
    func url(for image: FeedImage) -> URL {
        server.url(image.path)
    }

    /// Requests received for `image` so far (full and conditional).
    func requestCount(for image: FeedImage) -> Int {
        counters.withLock { $0.perImage[image.index] }
    }

    /// Conditional requests (`If-None-Match` or `If-Modified-Since`) and `304` answers so far.
    var conditionalCounts: (conditional: Int, notModified: Int) {
        counters.withLock { ($0.conditional, $0.notModified) }
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
