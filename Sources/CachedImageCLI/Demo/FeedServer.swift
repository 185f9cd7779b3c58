import Foundation
import LoopbackServer
import ToolSupport

/// Serves a ``DemoFeed`` from the embedded loopback server with the headers a CDN sends
/// (`Content-Type`, `ETag`, `Last-Modified`, `Cache-Control: public, max-age=…`, `Accept-Ranges:
/// bytes` (a `Range` is answered with `206`), a `Date` read
/// from the demo's simulated clock), after a fixed latency; answers `If-None-Match` with `304`
/// when the ETag still matches, and counts requests, conditional requests and `304`s.
///
/// On day 2 (``setDay(_:)``) the images in ``DemoFeed/dayTwo`` are served with their new bytes
/// and new ETag; an image published on a later day (``FeedImage/day``) is `404 Not Found` until
/// that day. ``shutdown()`` takes the server off the network (its port refuses connections);
/// ``restart()`` brings it back on the same port, so every URL stays the same.
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

    /// The running loopback server, and the requests and bytes of the servers before it.
    private struct Listener: Sendable {
        var server: LoopbackServer
        var earlierRequests = 0
        var earlierBytes = 0
    }

    let feed: DemoFeed
    private let listener: Protected<Listener>
    private let counters: Protected<Counters>
    private let day = Protected(1)
    /// The server's own latency per request (on top of the link's delays).
    private let latency: Protected<Duration>
    private let maxAge: Int
    private let clock: DemoClock

    private init(feed: DemoFeed, server: LoopbackServer, latency: Duration, maxAge: Int, clock: DemoClock) {
        self.feed = feed
        self.listener = Protected(Listener(server: server))
        self.counters = Protected(Counters(perImage: [Int](repeating: 0, count: feed.images.count)))
        self.latency = Protected(latency)
        self.maxAge = maxAge
        self.clock = clock
    }

    /// Starts the server and registers every image of `feed`; `Date` headers follow `clock`.
    static func start(feed: DemoFeed, latency: Duration, maxAge: Int, clock: DemoClock, link: LinkProfile = .loopback) async throws -> FeedServer {
        let server: LoopbackServer
        do {
            server = try await LoopbackServer.start(link: link)
        } catch {
            throw CLIError("could not start the loopback image server: \(error)")
        }
        let feedServer = FeedServer(feed: feed, server: server, latency: latency, maxAge: maxAge, clock: clock)
        feedServer.registerRoutes(on: server)
        return feedServer
    }

    /// Brings the server back after ``shutdown()`` on the same port (the same URLs), with the
    /// same routes; the counters go on from where they were.
    func restart() async throws {
        let old = listener.withLock { $0.server }
        let server: LoopbackServer
        do {
            server = try await LoopbackServer.start(port: old.port, link: old.link)
        } catch {
            throw CLIError("could not restart the loopback image server on port \(old.port): \(error)")
        }
        registerRoutes(on: server)
        listener.withLock { listener in
            listener.earlierRequests += listener.server.totalRequestCount
            listener.earlierBytes += listener.server.bytesSent
            listener.server = server
        }
    }

    private func registerRoutes(on server: LoopbackServer) {
        let (feed, maxAge, clock) = (feed, maxAge, clock)
        for image in feed.images {
            let index = image.index
            let publishedOn = image.day
            server.serve(image.path) { [self] request in
                let now = clock.now
                let latency = self.latency.current
                guard day.current >= publishedOn else {
                    counters.withLock { $0.perImage[index] += 1 }
                    var response = LoopbackResponse.status(404, headers: ["Date": HTTPDateFormat.string(from: now)])
                    response.latency = latency
                    return response
                }
                let current = current(index)
                // Day 1's version was last modified a day before the session; day 2's at the change.
                let lastModified = day.current >= 2 && feed.dayTwo[index] != nil
                    ? now.addingTimeInterval(-60) : now.addingTimeInterval(-86_400)
                var headers = [
                    "Content-Type": current.contentType,
                    "ETag": current.etag,
                    "Last-Modified": HTTPDateFormat.string(from: lastModified),
                    "Cache-Control": "public, max-age=\(maxAge)",
                    "Date": HTTPDateFormat.string(from: now),
                    "Accept-Ranges": "bytes", // as CDNs send it: an interrupted download may be resumed
                ]
                let ifNoneMatch = request.header("If-None-Match")
                let isConditional = ifNoneMatch != nil || request.header("If-Modified-Since") != nil
                let matches = ifNoneMatch.map { value in
                    value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == current.etag }
                } ?? false
                counters.withLock { counters in
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
                response.honorsRanges = true
                return response
            }
        }
    }

    /// Emulates `link` from now on (``LinkProfile``), with `latency` per request on the server
    /// (a link profile's delays usually stand for the whole path: zero).
    func setLink(_ link: LinkProfile, latency: Duration) {
        self.latency.withLock { $0 = latency }
        listener.withLock { $0.server }.setLink(link)
    }

    /// Bytes the emulated link carried since it was set (``LoopbackServer/linkBytes``).
    var linkBytes: Int {
        listener.withLock { $0.server }.linkBytes
    }

    /// The link the server emulates now, and its own latency per request.
    var link: (profile: LinkProfile, latency: Duration) {
        (listener.withLock { $0.server }.link, latency.current)
    }

    /// Switches the content the server holds: day 1 (the original feed), day 2 and later (the
    /// changed images replaced), and every batch published up to `day`.
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

    /// The URL of `image` on this server (the same after a ``restart()``).
    func url(for image: FeedImage) -> URL {
        listener.withLock { $0.server }.url(image.path)
    }

    /// Requests received for `image` so far (full and conditional).
    func requestCount(for image: FeedImage) -> Int {
        counters.withLock { $0.perImage[image.index] }
    }

    /// Conditional requests (`If-None-Match` or `If-Modified-Since`) and `304` answers so far.
    var conditionalCounts: (conditional: Int, notModified: Int) {
        counters.withLock { ($0.conditional, $0.notModified) }
    }

    /// Requests received for any path so far (across restarts).
    var totalRequestCount: Int {
        listener.withLock { $0.earlierRequests + $0.server.totalRequestCount }
    }

    /// Response body bytes sent so far (across restarts).
    var bytesSent: Int {
        listener.withLock { $0.earlierBytes + $0.server.bytesSent }
    }

    /// Stops the server: from now on its port refuses connections, like a device gone offline.
    func shutdown() async {
        await listener.withLock { $0.server }.shutdown()
    }
}
