import Foundation

/// Whether a cached entry may be served as it is, served while it is revalidated, served
/// without the network, or stand in for a failed revalidation (RFC 9111 4.2, 4.2.4; RFC 5861).
struct FreshnessCheck: Sendable {
    var policy: ImagePipeline.FreshnessPolicy
    var clock: any CacheClock

    /// Whether `metadata` may be served without asking the server, for a request with `options`.
    /// `.reloadRevalidatingCacheData` asks even for fresh entries, unless they are `immutable`.
    func isFresh(_ metadata: CachedResponseMetadata, for options: ImageRequest.Options) -> Bool {
        let revalidationRequested = options.contains(.reloadRevalidatingCacheData)
        switch policy {
        case .ignoreHTTPHeaders:
            return !revalidationRequested
        case .http(let heuristic):
            let fresh = metadata.isFresh(at: clock.now, heuristic: heuristic)
            return revalidationRequested ? fresh && metadata.isImmutable : fresh
        }
    }

    /// Whether `metadata` may be served without asking the server for `request`: its options
    /// (``isFresh(_:for:)``) and its own cache directives (`max-age`, `min-fresh`, `max-stale`,
    /// `.returnCacheDataElseLoad`; RFC 9111 5.2.1), which apply under the `.http` policy.
    func isFresh(_ metadata: CachedResponseMetadata, for request: ImageRequest) -> Bool {
        let fresh = isFresh(metadata, for: request.options)
        let directives = request.cacheDirectives
        guard directives.constrainsFreshness, case .http(let heuristic) = policy,
              !request.options.contains(.reloadRevalidatingCacheData)
        else { return fresh }
        return directives.accepts(metadata, fresh: fresh, at: clock.now, heuristic: heuristic)
    }

    /// Whether a stale entry may be served at once while one background revalidation refreshes
    /// it (`stale-while-revalidate`). Never for a pull-to-refresh, nor for a request whose own
    /// directives limit freshness.
    func mayServeWhileRevalidating(_ metadata: CachedResponseMetadata, for request: ImageRequest) -> Bool {
        guard case .http(let heuristic) = policy, !request.options.contains(.reloadRevalidatingCacheData),
              !request.cacheDirectives.constrainsFreshness
        else { return false }
        return metadata.isWithinStaleWhileRevalidate(at: clock.now, heuristic: heuristic)
    }

    /// Whether a cache-only request (offline, Low Data Mode) may be answered with this entry:
    /// not when it is stale and `must-revalidate` or `no-cache` forbids that.
    func mayServeWithoutNetwork(_ metadata: CachedResponseMetadata) -> Bool {
        guard case .http(let heuristic) = policy else { return true }
        return metadata.mayServeWithoutNetwork(at: clock.now, heuristic: heuristic)
    }

    /// The heuristic for responses that state no lifetime.
    var heuristic: HeuristicFreshness {
        if case .http(let heuristic) = policy { return heuristic }
        return .default
    }

    /// How long an image decoded from a response with `metadata` (`nil`: not storable) may be
    /// served from memory (RFC 9111 5.2.2.5: `no-store` data is not kept).
    func memoryLifetime(_ metadata: CachedResponseMetadata?) -> MemoryCacheLifetime {
        switch policy {
        case .ignoreHTTPHeaders:
            return .forResponse(metadata, honorsHTTPFreshness: false, heuristic: .default, at: clock.now)
        case .http(let heuristic):
            return .forResponse(metadata, honorsHTTPFreshness: true, heuristic: heuristic, at: clock.now)
        }
    }

    /// Stale-if-error: whether the stale entry may be served after revalidating it failed with
    /// `error`: after a connection failure unless `must-revalidate`/`no-cache` forbid it; after
    /// a 5xx only within its `stale-if-error` seconds; never after any other error.
    func mayServeStale(_ metadata: CachedResponseMetadata, after error: ImagePipeline.Error) -> Bool {
        let failure: RevalidationFailure
        switch error {
        case .transport, .truncatedResponse:
            failure = .transport
        case .badStatusCode(_, let status):
            failure = .httpStatus(status)
        default:
            return false
        }
        switch policy {
        case .ignoreHTTPHeaders:
            // Entries never go stale under this policy, except on an explicit reload.
            return error.isTransient
        case .http(let heuristic):
            return metadata.mayServeStale(afterError: failure, at: clock.now, heuristic: heuristic)
        }
    }
}
