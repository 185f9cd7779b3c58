import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import CachedImageCore

/// A response a ``ScriptedServer`` gives: what a real server would send, plus the misbehaviours
/// unit tests need (a cut-off body, a transport failure, a slow first byte, progress in pieces).
struct ScriptedResponse: Sendable {
    var status = 200
    var headers: [String: String] = [:]
    var body = Data()
    /// How long to wait before answering (a slow server); zero by default.
    var latency: Duration = .zero
    /// When set, progress is reported in pieces of this many bytes.
    var chunkSize: Int?
    /// When set, only this many body bytes arrive although `Content-Length` announces all.
    var truncatedAfter: Int?
    /// When set, the load fails with this error instead of answering (no connection, reset...).
    var failure: URLError?
    /// Whether `If-None-Match` / `If-Modified-Since` matching the validators get a `304`.
    var honorsConditionalRequests = true

    static func ok(
        _ body: Data,
        contentType: String = "application/octet-stream",
        headers: [String: String] = [:],
        latency: Duration = .zero,
        truncatedAfter: Int? = nil
    ) -> ScriptedResponse {
        var all = headers
        if HTTPHeaders(headers)["Content-Type"] == nil { all["Content-Type"] = contentType }
        return ScriptedResponse(headers: all, body: body, latency: latency, truncatedAfter: truncatedAfter)
    }

    static func status(_ status: Int, body: Data = Data(), headers: [String: String] = [:]) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: headers, body: body)
    }

    static func unavailable(status: Int = 503, retryAfter: String? = nil) -> ScriptedResponse {
        var headers = ["Content-Type": "text/plain"]
        if let retryAfter { headers["Retry-After"] = retryAfter }
        return ScriptedResponse(status: status, headers: headers, body: Data("Service Unavailable".utf8))
    }

    /// The connection drops: the loader throws `URLError(code)`.
    static func transportFailure(_ code: URLError.Code = .networkConnectionLost) -> ScriptedResponse {
        ScriptedResponse(failure: URLError(code))
    }
}

/// A request as the ``ScriptedServer`` received it.
struct ScriptedRequest: Sendable {
    var method: String
    var path: String
    var headers: [String: String]

    /// The value of header `name`, compared case-insensitively.
    func header(_ name: String) -> String? { HTTPHeaders(headers)[name] }
}

/// A ``DataLoading`` double for pipeline and view-model unit tests: answers from scripted
/// routes in process, records every request, and counts body bytes, with the surface of the
/// loopback server (`serve`, `requestCount(for:)`, `requests(for:)`, `bytesSent`...). No
/// sockets, no server start, nothing to shut down.
final class ScriptedServer: StreamingDataLoading {
    typealias Handler = @Sendable (ScriptedRequest) async -> ScriptedResponse

    /// A base URL no real network answers.
    let baseURL = URL(string: "http://scripted.test")!

    private struct State {
        var routes: [String: Handler] = [:]
        var requests: [ScriptedRequest] = []
        var bytesSent = 0
        var loadPriorities: [String: [ImageRequest.Priority]] = [:]
    }

    private let state = Locked(State())

    func url(_ path: String) -> URL { URL(string: path, relativeTo: baseURL)!.absoluteURL }

    /// Answers `path` with `response`, replacing any earlier route.
    func serve(_ path: String, _ response: ScriptedResponse) {
        serve(path) { _ in response }
    }

    /// Answers `path` with whatever `handler` returns for each request.
    func serve(_ path: String, handler: @escaping Handler) {
        state.withLock { $0.routes[path] = handler }
    }

    func requestCount(for path: String) -> Int { requests(for: path).count }
    func requests(for path: String) -> [ScriptedRequest] { state.withLock { $0.requests.filter { $0.path == path } } }
    var allRequests: [ScriptedRequest] { state.withLock { $0.requests } }
    var totalRequestCount: Int { state.withLock { $0.requests.count } }
    /// Body bytes answered so far (304s and failures send none).
    var bytesSent: Int { state.withLock { $0.bytesSent } }
    /// The priorities the running loads of `path` were given, in order: each load's starting
    /// priority, then every change the pipeline passed on while it ran.
    func loadPriorities(for path: String) -> [ImageRequest.Priority] {
        state.withLock { $0.loadPriorities[path] ?? [] }
    }

    func resetCounters() {
        state.withLock {
            $0.requests = []
            $0.bytesSent = 0
        }
    }

    // MARK: DataLoading

    /// Records the load's priority as it starts and changes (``loadPriorities(for:)``), then
    /// answers like ``loadData(for:progress:)``.
    func load(
        _ request: URLRequest,
        limits: DataLoadLimits,
        priority: DataLoadPriority,
        progress: @escaping @Sendable (Int64, Int64?) -> Void
    ) async throws -> DataLoadResponse {
        let path = request.url?.path ?? ""
        priority.observe { [state] value in
            state.withLock { $0.loadPriorities[path, default: []].append(value) }
        }
        return try await load(request, limits: limits, progress: progress)
    }

    func loadData(
        for request: URLRequest,
        progress: @escaping @Sendable (Int64, Int64?) -> Void
    ) async throws -> (Data, URLResponse) {
        try Task.checkCancellation()
        guard let url = request.url else { throw URLError(.badURL) }
        let received = ScriptedRequest(
            method: request.httpMethod ?? "GET", path: url.path, headers: request.allHTTPHeaderFields ?? [:]
        )
        let handler = state.withLock { state -> Handler? in
            state.requests.append(received)
            return state.routes[url.path]
        }
        var response = await handler?(received) ?? .status(404)
        if response.latency > .zero { try await Task.sleep(for: response.latency) }
        try Task.checkCancellation()
        if let failure = response.failure { throw failure }

        if response.honorsConditionalRequests, (200..<300).contains(response.status), Self.isNotModified(received, response) {
            response = ScriptedResponse(status: 304, headers: response.headers.filter { $0.key.lowercased() != "content-type" })
        }
        var headers = response.headers
        if response.status != 304, HTTPHeaders(headers)["Content-Length"] == nil {
            headers["Content-Length"] = String(response.body.count)
        }
        let body = response.status == 304 ? Data() : response.body.prefix(response.truncatedAfter ?? response.body.count)
        let expected = Int64(response.body.count)
        if let chunkSize = response.chunkSize, chunkSize > 0 {
            var sent = 0
            while sent < body.count {
                sent = min(body.count, sent + chunkSize)
                progress(Int64(sent), expected)
                await Task.yield()
            }
        } else if !body.isEmpty {
            progress(Int64(body.count), expected)
        }
        state.withLock { $0.bytesSent += body.count }
        let http = HTTPURLResponse(url: url, statusCode: response.status, httpVersion: "HTTP/1.1", headerFields: headers)!
        return (Data(body), http)
    }

    /// Whether a conditional request is answered 304 by validators (`If-None-Match` first).
    private static func isNotModified(_ request: ScriptedRequest, _ response: ScriptedResponse) -> Bool {
        let headers = HTTPHeaders(response.headers)
        if let ifNoneMatch = request.header("If-None-Match") {
            return headers["ETag"].map { ifNoneMatch == $0 } ?? false
        }
        if let since = request.header("If-Modified-Since").flatMap({ HTTPDate.parse($0) }),
           let lastModified = headers["Last-Modified"].flatMap({ HTTPDate.parse($0) }) {
            return lastModified <= since
        }
        return false
    }
}
