import Foundation

/// What may be stored under the requested (original) URL when the response came through
/// redirects: reuse of the original URL is governed by every redirect on the way (RFC 9111
/// 4.2.2, RFC 9110 15.4), so the most restrictive hop wins.
extension CachedResponseMetadata {
    /// This metadata (of the final response) restricted by the redirect `hops` that led to it,
    /// for storing under the original URL; `nil` when a hop forbids storing or reuse.
    ///
    /// For every hop, in order:
    /// - `no-store`, `Vary: *` or `Vary: Cookie` on the hop → `nil`;
    /// - lifetime: a hop with explicit freshness (`max-age`, `Expires`) caps the lifetime so the
    ///   entry goes stale no later than the hop does (the hop's remaining freshness, measured by
    ///   its own age); a 302, 303 or 307 without explicit freshness is not heuristically
    ///   cacheable, so the lifetime becomes `0` (stale at once: every use asks the original URL);
    ///   a 301 or 308 without explicit freshness is heuristically cacheable and, being
    ///   permanent, does not cap the final response's lifetime. When a cap applies and the final
    ///   response has no explicit lifetime, its `heuristic` lifetime is resolved now and stored
    ///   as explicit;
    /// - `immutable` only if the final response and every hop say `immutable`;
    /// - `must-revalidate` and `no-cache` if any hop says so;
    /// - `stale-if-error` / `stale-while-revalidate`: the smallest value, `nil` when a hop lacks it;
    /// - `Vary`: the union of the names (values from `requestHeaders`).
    ///
    /// Validators, content type, `storedAt` and `initialAge` stay the final response's. With no
    /// hops the metadata is returned unchanged.
    ///
    /// - Parameters:
    ///   - hops: the redirect responses in the order they were received.
    ///   - requestHeaders: the original request's header fields as sent.
    ///   - heuristic: the heuristic the pipeline uses for responses without explicit freshness.
    func restricted(
        byRedirects hops: [RedirectHop],
        requestHeaders: HTTPHeaders = HTTPHeaders(),
        heuristic: HeuristicFreshness
    ) -> CachedResponseMetadata? {
        var combined = self
        for hop in hops {
            guard let hopMetadata = CachedResponseMetadata(
                headers: hop.headers, statusCode: hop.statusCode, requestHeaders: requestHeaders,
                requestTime: hop.requestTime, responseTime: hop.responseTime
            ) else { return nil }

            if let hopLifetime = hopMetadata.freshnessLifetime {
                // The lifetime that leaves the combined entry exactly the hop's remaining freshness.
                let hopRemaining = hopLifetime - hopMetadata.currentAge(at: combined.storedAt)
                let cap = hopRemaining > 0 ? Self.sanitized(combined.initialAge + hopRemaining) : 0
                combined.freshnessLifetime = min(combined.lifetime(heuristic: heuristic), cap)
            }
            combined.isImmutable = combined.isImmutable && hopMetadata.isImmutable
            combined.mustRevalidate = combined.mustRevalidate || hopMetadata.mustRevalidate
            combined.noCache = combined.noCache || hopMetadata.noCache
            combined.staleIfError = Self.smaller(combined.staleIfError, hopMetadata.staleIfError)
            combined.staleWhileRevalidate = Self.smaller(combined.staleWhileRevalidate, hopMetadata.staleWhileRevalidate)
            if !hopMetadata.vary.isEmpty {
                var byName = Dictionary(combined.vary.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
                for field in hopMetadata.vary where byName[field.name] == nil { byName[field.name] = field }
                combined.vary = byName.values.sorted { $0.name < $1.name }
            }
        }
        if combined.noCache { combined.freshnessLifetime = 0 }
        return combined
    }

    /// The smaller of two optional allowances; `nil` (not allowed) when either is `nil`.
    private static func smaller(_ a: TimeInterval?, _ b: TimeInterval?) -> TimeInterval? {
        guard let a, let b else { return nil }
        return min(a, b)
    }
}
