import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// A loopback HTTP/1.1 server for integration tests, built on Hummingbird.
///
/// It binds `127.0.0.1` on an ephemeral port, serves routes registered at run time, answers
/// unknown paths with `404`, and counts requests and body bytes so tests can assert what hit
/// the network.
///
/// ```swift
/// let server = try await LoopbackServer.start()
/// server.serve("/a.png", .ok(png, contentType: "image/png", headers: ["ETag": "\"v1\""]))
/// let (data, _) = try await loader.loadData(for: URLRequest(url: server.url("/a.png"))) { _, _ in }
/// #expect(server.requestCount(for: "/a.png") == 1)
/// await server.shutdown()
/// ```
///
/// Always call ``shutdown()`` at the end of a test: it closes the listening socket and every
/// connection, cutting short any response still waiting out its latency.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
public final class LoopbackServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public let baseURL: URL

    private let state: LoopbackServerState
    private let server: Server<HTTP1Channel>
    private let runTask: Task<Void, Never>

    /// Errors thrown by ``start()``.
    public enum StartError: Error {
        /// The server stopped before it reported a listening port.
        case stoppedBeforeListening
        /// The bound port does not form a valid URL.
        case invalidBaseURL(port: Int)
    }

    private init(port: Int, baseURL: URL, state: LoopbackServerState, server: Server<HTTP1Channel>, runTask: Task<Void, Never>) {
        self.port = port
        self.baseURL = baseURL
        self.state = state
        self.server = server
        self.runTask = runTask
    }

    deinit {
        runTask.cancel()
    }

    /// Starts a server on `127.0.0.1` and returns once it is listening.
    ///
    /// - Parameter port: The port to bind; `0` (the default) picks an ephemeral one. A server that
    ///   comes back after ``shutdown()`` passes its old ``port`` so its URLs stay the same (the
    ///   socket is bound with `SO_REUSEADDR`).
    /// - Parameter link: The network link responses cross (``LinkProfile``); the default is the
    ///   plain loopback. ``setLink(_:)`` changes it later.
    public static func start(port requestedPort: Int = 0, link: LinkProfile = .loopback) async throws -> LoopbackServer {
        let state = LoopbackServerState()
        state.setLink(link)
        let portSignal = PortSignal()
        var logger = Logger(label: "CachedImage.LoopbackServer")
        logger.logLevel = .critical  // shutdown by cancellation logs an expected error
        let server = Server(
            childChannelSetup: HTTP1Channel(responder: { request, writer, channel in
                if !state.link.isUnlimited {
                    // A client that closes its connection (a cancelled request) closes the
                    // channel, so the emulated link stops sending to it (isActive turns false).
                    channel.setOption(ChannelOptions.allowRemoteHalfClosure, value: false).whenComplete { _ in }
                }
                try await state.respond(to: request, writer: writer, isConnected: { channel.isActive })
            }),
            configuration: ServerConfiguration(address: .hostname("127.0.0.1", port: requestedPort)),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port {
                    portSignal.resolve(.success(port))
                } else {
                    portSignal.resolve(.failure(StartError.stoppedBeforeListening))
                }
            },
            eventLoopGroup: EventLoopGroupProvider.singleton.eventLoopGroup,
            logger: logger
        )
        let runTask = Task {
            do {
                try await server.run()
                portSignal.resolve(.failure(StartError.stoppedBeforeListening))
            } catch {
                portSignal.resolve(.failure(error))
            }
        }
        let port: Int
        do {
            port = try await portSignal.port
        } catch {
            runTask.cancel()
            await runTask.value
            throw error
        }
        var components = URLComponents()
        components.scheme = "http"
        components.host = "127.0.0.1"
        components.port = port
        guard let baseURL = components.url else {
            runTask.cancel()
            await runTask.value
            throw StartError.invalidBaseURL(port: port)
        }
        return LoopbackServer(port: port, baseURL: baseURL, state: state, server: server, runTask: runTask)
    }

    /// The network link responses cross: a bandwidth shared by every connection, a delay each
    /// way, lost packets and dropped connections (``LinkProfile``). Responses that start after
    /// the call use the new link, with the downlink free.
    public func setLink(_ profile: LinkProfile) {
        state.setLink(profile)
    }

    /// The link responses cross now.
    public var link: LinkProfile {
        state.link
    }

    /// Bytes the emulated link carried since the last ``setLink(_:)``: what ``bytesSent``
    /// counts, plus response heads, lost packets sent again, and pieces that left before the
    /// client closed its connection.
    public var linkBytes: Int {
        state.linkBytes
    }

    /// The URL of `path` (which may carry a query) on this server.
    ///
    /// ```swift
    /// server.url("/images/a.png?size=2")  // http://127.0.0.1:54321/images/a.png?size=2
    /// ```
    public func url(_ path: String) -> URL {
        let relative = path.hasPrefix("/") ? path : "/" + path
        return URL(string: relative, relativeTo: baseURL)?.absoluteURL ?? baseURL.appendingPathComponent(path)
    }

    /// Serves `response` for `path`, replacing any earlier route for it.
    ///
    /// A route registered with a query (`"/a.png?v=2"`) matches only that query; a route without
    /// one matches the path with any query.
    public func serve(_ path: String, _ response: LoopbackResponse) {
        state.setRoute(.fixed(response), for: path)
    }

    /// Serves whatever `handler` returns for each request to `path`. Latency, truncation and
    /// conditional handling apply to the returned response as to a fixed one.
    ///
    /// ```swift
    /// server.serve("/a.png") { request in
    ///     request.header("If-None-Match") == "\"v1\"" ? .status(304) : .ok(png, headers: ["ETag": "\"v1\""])
    /// }
    /// ```
    public func serve(_ path: String, handler: @escaping @Sendable (RecordedRequest) async -> LoopbackResponse) {
        state.setRoute(.handler(handler), for: path)
    }

    /// Removes the route for `path`: it answers `404` again.
    public func removeRoute(_ path: String) {
        state.setRoute(nil, for: path)
    }

    /// The number of requests received for `path` (query ignored) since start or the last
    /// ``resetCounters()``, whatever their outcome (404s included).
    public func requestCount(for path: String) -> Int {
        state.allRequests.reduce(0) { $0 + ($1.path == path ? 1 : 0) }
    }

    /// The number of requests received for any path.
    public var totalRequestCount: Int {
        state.allRequests.count
    }

    /// The body bytes written to clients (not counting headers; truncated bodies count only the
    /// bytes actually sent).
    public var bytesSent: Int {
        state.bytesSent
    }

    /// The requests received for `path` (query ignored), oldest first.
    public func requests(for path: String) -> [RecordedRequest] {
        state.allRequests.filter { $0.path == path }
    }

    /// Every request received, oldest first.
    public var allRequests: [RecordedRequest] {
        state.allRequests
    }

    /// Forgets recorded requests and zeroes ``bytesSent``. Routes are kept.
    public func resetCounters() {
        state.resetCounters()
    }

    /// Stops the server and returns once it has stopped. Idle connections are closed at once;
    /// a response still waiting out its latency is abandoned (its connection is closed), and
    /// any other busy connection gets up to 500 ms to finish before it is cut.
    public func shutdown() async {
        if state.hasWaitingResponses {
            runTask.cancel()
        }
        let server = self.server
        let graceful = Task {
            try? await server.shutdownGracefully()
        }
        let runTask = self.runTask
        let deadline = Task {
            try? await Task.sleep(for: .milliseconds(500))
            graceful.cancel()
            runTask.cancel()
        }
        await graceful.value
        await runTask.value
        deadline.cancel()
        _ = await deadline.value
    }
}
