import Foundation

/// Whether a cached entry may be served as it is, and whether a stale one may stand in for a
/// failed revalidation.
struct FreshnessCheck: Sendable {
    var policy: ImagePipeline.FreshnessPolicy
    var clock: any CacheClock

    /// Whether `metadata` may be served without asking the server, for a request with `options`.
    /// `.reloadRevalidatingCachedData` asks even for fresh entries, unless they are `immutable`.
    func isFresh(_ metadata: CachedResponseMetadata, for options: ImageRequest.Options) -> Bool {
        let revalidationRequested = options.contains(.reloadRevalidatingCachedData)
        switch policy {
        case .ignoreHTTPHeaders:
            return !revalidationRequested
        case .http(let heuristicLifetime):
            let fresh = metadata.isFresh(at: clock.now, heuristicLifetime: heuristicLifetime)
            return revalidationRequested ? fresh && metadata.isImmutable : fresh
        }
    }

    /// Stale-if-error: whether the stale entry may be served after revalidating it failed with
    /// `error`. An old image beats a broken one, unless the server forbade it.
    func mayServeStale(_ metadata: CachedResponseMetadata, after error: ImagePipeline.Error) -> Bool {
        error.isTransient && !metadata.mustRevalidate
    }
}
