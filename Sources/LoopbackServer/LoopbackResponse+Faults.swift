import Foundation
import ToolSupport

/// Misbehaving responses for fault-injection tests. Each is an ordinary ``LoopbackResponse``
/// (so they combine with ``LoopbackResponse/latency``, ``LoopbackResponse/chunkSize`` and the
/// rest); these factories only name the misbehaviour and fill in the right headers.
///
/// ```swift
/// server.serve("/busy.png", .unavailable(retryAfter: "2"))
/// server.serve("/old.png", .redirect(to: "/new.png"))
/// server.serve("/loop.png", .redirect(to: "/loop.png"))
/// server.serve("/cut.png", .resetMidBody(png, contentType: "image/png", after: 100))
/// ```
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
extension LoopbackResponse {
    /// A `503 Service Unavailable` (or another `status`, such as `500` or `429`) with an
    /// optional `Retry-After` header: a number of seconds (`"2"`) or an HTTP date.
    public static func unavailable(status: Int = 503, retryAfter: String? = nil) -> LoopbackResponse {
        var headers = ["Content-Type": "text/plain"]
        if let retryAfter {
            headers["Retry-After"] = retryAfter
        }
        return LoopbackResponse(status: status, headers: headers, body: Data("Service Unavailable".utf8))
    }

    /// A redirect (`302` unless `status` says otherwise) to `location`, a path on the same
    /// server or an absolute URL. A route redirecting to itself makes a redirect loop.
    public static func redirect(to location: String, status: Int = 302) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: ["Location": location, "Content-Type": "text/plain"], body: Data())
    }

    /// Declares the full `Content-Length` of `body`, sends its first `after` bytes, then closes
    /// the connection (a reset mid-body; also a `Content-Length` longer than what arrives).
    public static func resetMidBody(_ body: Data, contentType: String, after: Int) -> LoopbackResponse {
        LoopbackResponse(headers: ["Content-Type": contentType], body: body, truncatedAfter: after)
    }

    /// Sends `body` in `chunkSize`-byte pieces `delay` apart, after waiting `firstByteDelay`
    /// before the response head: a slow first byte and a slow trickle.
    public static func trickle(
        _ body: Data,
        contentType: String,
        chunkSize: Int,
        delay: Duration,
        firstByteDelay: Duration = .zero
    ) -> LoopbackResponse {
        LoopbackResponse(
            headers: ["Content-Type": contentType],
            body: body,
            latency: firstByteDelay,
            chunkSize: chunkSize,
            chunkDelay: delay
        )
    }
}

@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
extension LoopbackServer {
    /// Serves `responses` in order, one per request to `path`; once they run out the last one is
    /// repeated. For example two `503`s followed by the image, to test retries.
    ///
    /// ```swift
    /// server.serveSequence("/flaky.png", [.unavailable(), .unavailable(), .ok(png, contentType: "image/png")])
    /// ```
    public func serveSequence(_ path: String, _ responses: [LoopbackResponse]) {
        precondition(!responses.isEmpty, "serveSequence needs at least one response")
        let served = Protected(0)
        serve(path) { _ in
            let index = served.withLock { count in
                defer { count += 1 }
                return min(count, responses.count - 1)
            }
            return responses[index]
        }
    }

    /// Serves `response` for `path` with a different `ETag` on every request (`"1"`, `"2"`, ...),
    /// and never answers `304`: a server whose validators are useless.
    public func serveChangingETag(_ path: String, _ response: LoopbackResponse) {
        let served = Protected(0)
        serve(path) { _ in
            let number = served.withLock { count in
                count += 1
                return count
            }
            var changed = response
            changed.headers = changed.headers.filter { $0.key.lowercased() != "etag" }
            changed.headers["ETag"] = "\"\(number)\""
            changed.honorsConditionalRequests = false
            return changed
        }
    }
}
