import Foundation

/// What the disk cache remembers about a stored response besides its bytes: enough to decide,
/// later and after a relaunch, whether the bytes are still fresh and how to revalidate them.
///
/// Values follow RFC 9111: `storedAt` is the response time, `initialAge` the corrected initial
/// age at that moment, and `freshnessLifetime` what the server allowed (`nil` when it said
/// nothing, so the pipeline's heuristic lifetime applies when the entry is read).
public struct CachedResponseMetadata: Sendable, Hashable, Codable {
    /// The `Content-Type` the server sent, if any.
    public var contentType: String?
    /// The `ETag` validator, if any.
    public var etag: String?
    /// The `Last-Modified` validator, verbatim, if any.
    public var lastModified: String?
    /// When the response was received (or last revalidated).
    public var storedAt: Date
    /// How old the response already was when it was received, in seconds.
    public var initialAge: TimeInterval
    /// How long the response stays fresh, in seconds; `nil` when the server gave no explicit
    /// lifetime. `0` for `no-cache` responses, which must be revalidated before every use.
    public var freshnessLifetime: TimeInterval?
    /// `must-revalidate`: once stale, never serve without a successful revalidation.
    public var mustRevalidate: Bool
    /// `immutable`: fresh responses are never revalidated.
    public var isImmutable: Bool

    public init(
        contentType: String? = nil,
        etag: String? = nil,
        lastModified: String? = nil,
        storedAt: Date,
        initialAge: TimeInterval = 0,
        freshnessLifetime: TimeInterval? = nil,
        mustRevalidate: Bool = false,
        isImmutable: Bool = false
    ) {
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.storedAt = storedAt
        self.initialAge = initialAge
        self.freshnessLifetime = freshnessLifetime
        self.mustRevalidate = mustRevalidate
        self.isImmutable = isImmutable
    }
}
