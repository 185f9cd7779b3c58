import Foundation

/// A request as ``LoopbackServer`` received it, so tests can check what the client sent
/// (for example that a revalidation carried `If-None-Match`).
///
/// ```swift
/// let revalidation = try #require(server.requests(for: "/a.png").last)
/// #expect(revalidation.header("If-None-Match") == "\"v1\"")
/// ```
public struct RecordedRequest: Sendable, Equatable {
    /// The method, for example `GET`.
    public let method: String
    /// The path, without the query.
    public let path: String
    /// The query string without `?`, or `nil`.
    public let query: String?
    /// The headers, keyed by lower-cased name. Repeated headers are joined with `", "`.
    public let headers: [String: String]

    /// Creates a record (the server makes these; tests rarely need to).
    public init(method: String, path: String, query: String?, headers: [String: String]) {
        self.method = method
        self.path = path
        self.query = query
        var lowered: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            if let existing = lowered[key] {
                lowered[key] = existing + ", " + value
            } else {
                lowered[key] = value
            }
        }
        self.headers = lowered
    }

    /// The value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
