import Foundation
import HummingbirdCore
import HTTPTypes
import NIOCore
import ToolSupport

/// Routes, request log and byte counters of one ``LoopbackServer``, and the code that answers a
/// request. Shared by the server's connection handlers, so everything is behind one lock.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
final class LoopbackServerState: Sendable {
    enum Route: Sendable {
        case fixed(LoopbackResponse)
        case handler(@Sendable (RecordedRequest) async -> LoopbackResponse)
    }

    private struct State {
        var routes: [String: Route] = [:]
        var requests: [RecordedRequest] = []
        var bytesSent = 0
        var waitingResponses = 0
        var link: EmulatedLink?
    }

    /// Thrown after sending part of a truncated body: the server then closes the connection.
    struct TruncatedTransfer: Error {}

    private let state = Protected(State())

    // MARK: Routes and accounting

    func setRoute(_ route: Route?, for path: String) {
        state.withLock { $0.routes[path] = route }
    }

    var allRequests: [RecordedRequest] {
        state.withLock { $0.requests }
    }

    var bytesSent: Int {
        state.withLock { $0.bytesSent }
    }

    func resetCounters() {
        state.withLock { state in
            state.requests = []
            state.bytesSent = 0
        }
    }

    /// The link responses cross from now on; `nil` or an unlimited profile: the plain loopback.
    func setLink(_ profile: LinkProfile) {
        state.withLock { $0.link = profile.isUnlimited ? nil : EmulatedLink(profile: profile) }
    }

    var link: LinkProfile {
        state.withLock { $0.link?.profile } ?? .loopback
    }

    var linkBytes: Int {
        state.withLock { $0.link?.bookedBytes } ?? 0
    }

    /// Waits until `bytes` more of a response would have crossed the emulated link, if any.
    /// A client gone (its connection closed: a cancelled request) books no more of the link.
    private func pace(_ transfer: inout LinkTransfer?, _ bytes: Int, isConnected: () -> Bool) async throws {
        guard var current = transfer else { return }
        let untilReady = current.untilReady
        if untilReady > .zero { try await wait(untilReady) }
        guard isConnected() else { throw CancellationError() }
        let delay = current.waitBeforeWriting(bytes)
        transfer = current
        if delay > .zero { try await wait(delay) }
    }

    /// Whether some response is waiting out its latency or a chunk delay.
    var hasWaitingResponses: Bool {
        state.withLock { $0.waitingResponses > 0 }
    }

    private func wait(_ duration: Duration) async throws {
        state.withLock { $0.waitingResponses += 1 }
        defer { state.withLock { $0.waitingResponses -= 1 } }
        try await Task.sleep(for: duration)
    }

    private func addBytesSent(_ count: Int) {
        state.withLock { $0.bytesSent += count }
    }

    // MARK: Answering

    /// Records `request`, finds its route and writes the response.
    func respond(to request: Request, writer: consuming ResponseWriter, isConnected: () -> Bool = { true }) async throws {
        let received = ContinuousClock.now
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { $0 + ", " + field.value } ?? field.value
        }
        let record = RecordedRequest(
            method: request.method.rawValue,
            path: request.uri.path,
            query: request.uri.query,
            headers: headers
        )
        let target = record.query.map { record.path + "?" + $0 } ?? record.path
        let (route, link) = state.withLock { state in
            state.requests.append(record)
            return (state.routes[target] ?? state.routes[record.path], state.link)
        }

        var response: LoopbackResponse
        switch route {
        case .fixed(let fixed):
            response = fixed
        case .handler(let handler):
            response = await handler(record)
        case nil:
            response = .status(404, body: Data("Not Found".utf8), headers: ["Content-Type": "text/plain"])
        }

        response = response.answeringRange(of: record)

        if response.latency > .zero {
            try await wait(response.latency)
        }

        // The emulated link (if any): the request crossed the uplink, the server took its latency.
        var transfer = link.map { LinkTransfer(link: $0, receivedAt: received, serverTime: response.latency) }
        let headBytes = 200
        if Self.isNotModified(request: record, response: response) {
            try await pace(&transfer, headBytes, isConnected: isConnected)
            try await writer.writeResponse(HTTPResponse(status: .notModified, headerFields: Self.notModifiedFields(of: response)))
            return
        }

        let status = HTTPResponse.Status(code: response.status)
        let mayHaveBody = response.status >= 200 && response.status != 204 && response.status != 304
        var fields = Self.fields(from: response.headers)
        if mayHaveBody, fields[.contentLength] == nil {
            fields[.contentLength] = String(response.body.count)
        }
        let head = HTTPResponse(status: status, headerFields: fields)
        let body = (mayHaveBody && request.method != .head) ? response.body : Data()
        let cut = [response.truncatedAfter, link?.dropPoint(forLength: body.count)].compactMap { $0 }.min()
        let sentCount = min(max(cut ?? body.count, 0), body.count)
        let isTruncated = sentCount < body.count

        try await pace(&transfer, headBytes, isConnected: isConnected)
        guard sentCount > 0 || isTruncated else {
            try await writer.writeResponse(head)
            return
        }
        var bodyWriter = try await writer.writeHead(head)
        let pieceSize = max(min(response.chunkSize ?? sentCount, link?.pieceSize ?? .max), 1)
        var offset = 0
        while offset < sentCount {
            let end = min(offset + pieceSize, sentCount)
            let startIndex = body.startIndex + offset
            try await pace(&transfer, end - offset, isConnected: isConnected)
            try await bodyWriter.write(ByteBuffer(bytes: body[startIndex ..< body.startIndex + end]))
            addBytesSent(end - offset)
            offset = end
            if offset < sentCount, response.chunkSize != nil, response.chunkDelay > .zero {
                try await wait(response.chunkDelay)
            }
        }
        if isTruncated {
            // Ending the handler with an error makes Hummingbird close the connection without
            // sending the rest of the declared Content-Length.
            throw TruncatedTransfer()
        }
        try await bodyWriter.finish(nil)
    }

    // MARK: Helpers

    private static func fields(from headers: [String: String]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            if let fieldName = HTTPField.Name(name) {
                fields.append(HTTPField(name: fieldName, value: value))
            }
        }
        return fields
    }

    /// The headers a 304 repeats from the full response (RFC 9110, section 15.4.5).
    private static func notModifiedFields(of response: LoopbackResponse) -> HTTPFields {
        let kept: Set<String> = ["cache-control", "content-location", "date", "etag", "expires", "vary", "last-modified", "age"]
        return fields(from: response.headers.filter { kept.contains($0.key.lowercased()) })
    }

    static func isNotModified(request: RecordedRequest, response: LoopbackResponse) -> Bool {
        guard response.honorsConditionalRequests,
              (200 ..< 300).contains(response.status),
              request.method == "GET" || request.method == "HEAD"
        else { return false }
        if let ifNoneMatch = request.header("If-None-Match") {
            guard let etag = response.header("ETag") else { return false }
            return etagMatches(ifNoneMatch: ifNoneMatch, etag: etag)
        }
        if let ifModifiedSince = request.header("If-Modified-Since"),
           let lastModified = response.header("Last-Modified") {
            if ifModifiedSince == lastModified { return true }
            guard let since = parseHTTPDate(ifModifiedSince), let modified = parseHTTPDate(lastModified) else {
                return false
            }
            return modified <= since
        }
        return false
    }

    /// Weak comparison (RFC 9110, section 13.1.2): `W/` prefixes are ignored.
    static func etagMatches(ifNoneMatch: String, etag: String) -> Bool {
        let trimmed = ifNoneMatch.trimmingCharacters(in: .whitespaces)
        if trimmed == "*" { return true }
        func opaque(_ tag: Substring) -> Substring {
            let tag = tag.drop { $0 == " " }
            return tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
        }
        let wanted = opaque(Substring(etag.trimmingCharacters(in: .whitespaces)))
        return trimmed.split(separator: ",").contains { opaque($0).trimmingCharacters(in: .whitespaces) == wanted }
    }

    /// Parses an IMF-fixdate such as `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func parseHTTPDate(_ string: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: string.trimmingCharacters(in: .whitespaces))
    }
}
