import Foundation

/// A canned HTTP response served by ``LoopbackServer``, plus the behaviours tests need: latency,
/// chunked delivery, truncation and conditional (`304 Not Modified`) handling.
///
/// ```swift
/// server.serve("/cat.png", LoopbackResponse(
///     body: pngData,
///     headers: ["Content-Type": "image/png", "Cache-Control": "max-age=60", "ETag": "\"v1\""]
/// ))
/// server.serve("/slow.png", .ok(pngData, latency: .milliseconds(200)))
/// server.serve("/broken.png", .ok(pngData, truncatedAfter: 100))
/// ```
///
/// The server adds `Content-Length` (the full body size) and nothing else: no `Date` header unless
/// you put one in ``headers``, so freshness tests fully control what the pipeline sees.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
public struct LoopbackResponse: Sendable {
    /// The status code. Default `200`.
    public var status: Int
    /// Response headers, for example `Content-Type`, `Cache-Control`, `ETag`, `Last-Modified`,
    /// `Expires`, `Date`, `Age` or `Vary`. Names are case-insensitive. A `Content-Length` here
    /// replaces the one the server computes from ``body``.
    public var headers: [String: String]
    /// The body bytes.
    public var body: Data
    /// How long the server waits before sending the response head. Default zero.
    public var latency: Duration
    /// When set, the body is sent in pieces of this many bytes, ``chunkDelay`` apart, so the
    /// client sees several progress callbacks. The declared `Content-Length` is unchanged.
    public var chunkSize: Int?
    /// The pause between two body pieces when ``chunkSize`` is set. Default 5 ms.
    public var chunkDelay: Duration
    /// When set, the server declares the full `Content-Length`, sends only this many body bytes
    /// and then closes the connection: a transfer cut short.
    public var truncatedAfter: Int?
    /// When `true` (the default) a `GET`/`HEAD` whose `If-None-Match` matches the `ETag`
    /// header, or (without `If-None-Match`) whose `If-Modified-Since` is not older than the
    /// `Last-Modified` header, gets `304 Not Modified` with the caching headers and no body.
    /// Applies only to 2xx responses. Set to `false` to mimic a server that ignores validators.
    public var honorsConditionalRequests: Bool
    /// When `true`, a `GET` with one byte range (`Range: bytes=N-` or `bytes=N-M`) whose
    /// `If-Range`, if any, matches (strongly) the `ETag` or the `Last-Modified` header gets
    /// `206 Partial Content` with those bytes and a `Content-Range` (or `416` with
    /// `Content-Range: bytes */length` for a range past the end); ``truncatedAfter`` then counts
    /// within the range. Applies only to `200` responses. Default `false`: the range is ignored
    /// and the whole body sent, as a server without range support does. The server never adds
    /// `Accept-Ranges` itself: put it in ``headers``.
    public var honorsRanges = false

    /// Creates a response.
    public init(
        status: Int = 200,
        headers: [String: String] = [:],
        body: Data = Data(),
        latency: Duration = .zero,
        chunkSize: Int? = nil,
        chunkDelay: Duration = .milliseconds(5),
        truncatedAfter: Int? = nil,
        honorsConditionalRequests: Bool = true
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.latency = latency
        self.chunkSize = chunkSize
        self.chunkDelay = chunkDelay
        self.truncatedAfter = truncatedAfter
        self.honorsConditionalRequests = honorsConditionalRequests
    }

    /// A `200 OK` with `body`, a `Content-Type` and any extra headers.
    ///
    /// ```swift
    /// server.serve("/a.png", .ok(png, headers: ["ETag": "\"1\""]))
    /// ```
    public static func ok(
        _ body: Data,
        contentType: String = "application/octet-stream",
        headers: [String: String] = [:],
        latency: Duration = .zero,
        truncatedAfter: Int? = nil
    ) -> LoopbackResponse {
        var allHeaders = headers
        if LoopbackResponse.value(of: "Content-Type", in: headers) == nil {
            allHeaders["Content-Type"] = contentType
        }
        return LoopbackResponse(headers: allHeaders, body: body, latency: latency, truncatedAfter: truncatedAfter)
    }

    /// A response with `status`, a short text body and no caching headers.
    ///
    /// ```swift
    /// server.serve("/gone.png", .status(410))
    /// ```
    public static func status(_ status: Int, body: Data = Data(), headers: [String: String] = [:]) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: headers, body: body)
    }

    /// The value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        LoopbackResponse.value(of: name, in: headers)
    }

    static func value(of name: String, in headers: [String: String]) -> String? {
        if let exact = headers[name] { return exact }
        let lowered = name.lowercased()
        return headers.first { $0.key.lowercased() == lowered }?.value
    }
}
