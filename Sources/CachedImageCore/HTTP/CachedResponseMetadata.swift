import Foundation

/// What the disk cache remembers about a stored response besides its bytes: enough to decide,
/// later and after a relaunch, whether the bytes are still fresh, whether they may answer a
/// given request, and how to revalidate them.
///
/// Values follow RFC 9111: `storedAt` is the response time, `initialAge` the corrected initial
/// age at that moment, and `freshnessLifetime` what the server allowed (`nil` when it said
/// nothing, so a ``HeuristicFreshness`` applies when the entry is read). Everything a disk hit
/// needs is stored already parsed, so reading an entry never parses an HTTP header.
package struct CachedResponseMetadata: Sendable, Hashable, Codable {
    /// The `Content-Type` the server sent, if any.
    package var contentType: String?
    /// The `ETag` validator, if any.
    package var etag: String?
    /// The `Last-Modified` validator, verbatim, if any.
    package var lastModified: String?
    /// When the response was received (or last revalidated).
    package var storedAt: Date
    /// How old the response already was when it was received, in seconds.
    package var initialAge: TimeInterval
    /// How long the response stays fresh, in seconds; `nil` when the server gave no explicit
    /// lifetime. `0` for `no-cache` responses, which must be revalidated before every use, and
    /// for responses whose status is not heuristically cacheable (RFC 9111 4.2.2).
    package var freshnessLifetime: TimeInterval?
    /// `must-revalidate`: once stale, never serve without a successful revalidation.
    package var mustRevalidate: Bool
    /// `immutable`: fresh responses are never revalidated.
    package var isImmutable: Bool
    /// `no-cache` (or `Pragma: no-cache` without `Cache-Control`): never served without a
    /// successful revalidation, not even stale after an error (RFC 9111 5.2.2.4).
    package var noCache: Bool
    /// `stale-if-error` (RFC 5861), in seconds: how long after becoming stale the response may
    /// stand in for a server error.
    package var staleIfError: TimeInterval?
    /// `stale-while-revalidate` (RFC 5861), in seconds: how long after becoming stale the
    /// response may be served while a background revalidation runs.
    package var staleWhileRevalidate: TimeInterval?
    /// `Date - Last-Modified` of the response, in seconds (never negative): the basis of the
    /// heuristic lifetime (RFC 9111 4.2.2). `nil` without a parseable `Last-Modified`.
    package var lastModifiedAge: TimeInterval?
    /// The `Vary` field names of the response (lowercased, sorted, unique) with the values the
    /// request that fetched it had for them (RFC 9111 4.1). Empty when the response has no
    /// `Vary`.
    package var vary: [VaryField]
    /// The response's status and storable header fields, as a cache presents them (a `304`'s
    /// updates applied); `nil` for entries stored before CachedImage kept them.
    package var response: CachedHTTPResponse?

    /// Metadata with the given values; every field but `storedAt` defaults to "not stated". No
    /// `Vary` fields: the pipeline records those itself.
    package init(
        contentType: String? = nil,
        etag: String? = nil,
        lastModified: String? = nil,
        storedAt: Date,
        initialAge: TimeInterval = 0,
        freshnessLifetime: TimeInterval? = nil,
        mustRevalidate: Bool = false,
        isImmutable: Bool = false,
        noCache: Bool = false,
        staleIfError: TimeInterval? = nil,
        staleWhileRevalidate: TimeInterval? = nil,
        lastModifiedAge: TimeInterval? = nil,
        response: CachedHTTPResponse? = nil
    ) {
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.storedAt = storedAt
        self.initialAge = initialAge
        self.freshnessLifetime = freshnessLifetime
        self.mustRevalidate = mustRevalidate
        self.isImmutable = isImmutable
        self.noCache = noCache
        self.staleIfError = staleIfError
        self.staleWhileRevalidate = staleWhileRevalidate
        self.lastModifiedAge = lastModifiedAge
        self.vary = []
        self.response = response
    }
}
