import Foundation

/// How long a decoded image may be served from the memory cache, derived from the HTTP response
/// its bytes came from (RFC 9111 5.2.2.5: `no-store` data is dropped promptly).
package enum MemoryCacheLifetime: Sendable, Hashable {
    /// Do not put the image in the memory cache at all (`no-store`, `no-cache`, already stale,
    /// not reusable because of `Vary`).
    case doNotKeep
    /// Serve it from memory until this instant (exclusive), then ask the disk cache / network.
    case until(Date)
    /// No HTTP limit: keep it until evicted.
    case unlimited

    /// The memory lifetime of an image decoded at `now` from a response with `metadata`.
    ///
    /// - Parameters:
    ///   - metadata: the response's metadata; `nil` when `CachedResponseMetadata` refused the
    ///     response (`no-store`, `Vary: *`, `Vary: Cookie`), which gives ``doNotKeep``.
    ///   - honorsHTTPFreshness: `false` when the pipeline ignores freshness headers
    ///     (`FreshnessPolicy.ignoreHTTPHeaders`): anything storable is ``unlimited``.
    ///   - heuristic: the heuristic for responses without an explicit lifetime.
    ///   - now: the pipeline clock's current time.
    /// - Returns: ``doNotKeep`` for `no-cache` or a response already stale at `now` (for example
    ///   `max-age=0`); else ``until(_:)`` the instant it becomes stale (`now` plus the remaining
    ///   freshness). `immutable` does not extend it: after that instant the disk cache decides.
    package static func forResponse(
        _ metadata: CachedResponseMetadata?,
        honorsHTTPFreshness: Bool,
        heuristic: HeuristicFreshness,
        at now: Date
    ) -> MemoryCacheLifetime {
        guard let metadata else { return .doNotKeep }
        guard honorsHTTPFreshness else { return .unlimited }
        if metadata.noCache { return .doNotKeep }
        let remaining = metadata.lifetime(heuristic: heuristic) - metadata.currentAge(at: now)
        guard remaining > 0, remaining.isFinite else { return .doNotKeep }
        return .until(now.addingTimeInterval(remaining))
    }

    /// Whether an image with this lifetime may be served from memory at `now`.
    package func allowsServing(at now: Date) -> Bool {
        switch self {
        case .doNotKeep: false
        case .until(let expiry): now < expiry
        case .unlimited: true
        }
    }
}
