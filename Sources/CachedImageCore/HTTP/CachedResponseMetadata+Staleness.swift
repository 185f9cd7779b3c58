import Foundation

/// Why a revalidation (or a reload) of a stored response failed; decides whether the stale
/// response may stand in for the fresh one.
package enum RevalidationFailure: Sendable, Hashable {
    /// No response at all: not connected, DNS failure, connection refused or reset, timeout.
    /// The cache counts as disconnected (RFC 9111 4.2.4).
    case transport
    /// The server answered with this status (other than 2xx or 304).
    case httpStatus(Int)
}

/// When a stale response may still be served (RFC 9111 4.2.4, 5.2.2.2, 5.2.2.4; RFC 5861).
///
/// Common rules: a `no-cache` response is never served without a successful revalidation, and a
/// `must-revalidate` one never once stale. A response that is still fresh is always usable
/// (except `no-cache`, which is never fresh).
extension CachedResponseMetadata {
    /// The statuses `stale-if-error` covers (RFC 5861 4): 500, 502, 503 and 504.
    package static let staleIfErrorStatusCodes: Set<Int> = [500, 502, 503, 504]

    /// Whether this response may be served at `now` after revalidating (or reloading) it failed
    /// with `failure`:
    /// - never for `no-cache`; while fresh, always;
    /// - never once stale for `must-revalidate`;
    /// - a transport failure (disconnected, RFC 9111 4.2.4): yes, however stale;
    /// - a 500/502/503/504 answer: only while the staleness is below `stale-if-error` seconds
    ///   (RFC 5861 4); without `stale-if-error`, no;
    /// - any other status (a 404 or 410 says the resource is gone, a 401/403 that it is not
    ///   ours): no.
    package func mayServeStale(afterError failure: RevalidationFailure, at now: Date, heuristic: HeuristicFreshness) -> Bool {
        if noCache { return false }
        if isFresh(at: now, heuristic: heuristic) { return true }
        if mustRevalidate { return false }
        switch failure {
        case .transport:
            return true
        case .httpStatus(let status):
            guard Self.staleIfErrorStatusCodes.contains(status), let staleIfError else { return false }
            return staleness(at: now, heuristic: heuristic) < Self.sanitized(staleIfError)
        }
    }

    /// Whether this response may answer a cache-only request at `now` (`returnCacheDataDontLoad`,
    /// Low Data mode or offline: the network is not asked, as if disconnected, RFC 9111 4.2.4):
    /// fresh ones always; stale ones unless `must-revalidate` or `no-cache` forbids serving them
    /// without revalidation (the caller then reports "not cached").
    package func mayServeWithoutNetwork(at now: Date, heuristic: HeuristicFreshness) -> Bool {
        if noCache { return false }
        if isFresh(at: now, heuristic: heuristic) { return true }
        return !mustRevalidate
    }

    /// Whether this stale response may be served at once at `now` while one background
    /// revalidation refreshes it (`stale-while-revalidate`, RFC 5861 3): it is stale, its
    /// staleness is below the `stale-while-revalidate` seconds, and neither `no-cache` nor
    /// `must-revalidate` demands revalidation first. `false` while fresh (serve it normally).
    package func isWithinStaleWhileRevalidate(at now: Date, heuristic: HeuristicFreshness) -> Bool {
        guard !noCache, !mustRevalidate, let staleWhileRevalidate,
              !isFresh(at: now, heuristic: heuristic)
        else { return false }
        return staleness(at: now, heuristic: heuristic) < Self.sanitized(staleWhileRevalidate)
    }
}
