import Foundation

/// How long a response stays fresh when the server states no lifetime (no `max-age`, no
/// `Expires`): a heuristic freshness lifetime (RFC 9111 4.2.2).
///
/// Heuristics apply only to responses whose status is heuristically cacheable or that are
/// marked `public` (see ``isHeuristicallyCacheable(statusCode:isPublic:)``); any other response
/// without explicit freshness is stored with a lifetime of `0`.
///
/// The default, `.lastModifiedFraction(0.1, cap: 86_400)`, is the usual rule: 10% of the time
/// since the resource was last modified (`Date - Last-Modified`), at most one day. A response
/// without `Last-Modified` gets `withoutLastModified` seconds, the cap when that is `nil`: a
/// private image cache mostly sees content that does not change under its URL, a day bounds the
/// damage when it does, and an entry with an `ETag` is then revalidated cheaply (a 304).
/// Pass `withoutLastModified: 0` to revalidate such responses on every use.
public enum HeuristicFreshness: Sendable, Hashable {
    /// `fraction` of `Date - Last-Modified`, at most `cap` seconds; `withoutLastModified`
    /// seconds (the cap when `nil`) for a response without a usable `Last-Modified`.
    case lastModifiedFraction(Double, cap: TimeInterval, withoutLastModified: TimeInterval? = nil)
    /// A flat lifetime in seconds for a response that states none, whatever its
    /// `Last-Modified`: `freshnessPolicy = .http(heuristic: .fixed(3_600))`.
    case fixed(TimeInterval)

    /// The default heuristic cap: one day.
    public static let defaultCap: TimeInterval = 86_400
    /// `.lastModifiedFraction(0.1, cap: 86_400)`.
    public static let `default` = HeuristicFreshness.lastModifiedFraction(0.1, cap: defaultCap)

    /// The heuristic lifetime, in seconds, of a response whose `Date - Last-Modified` is
    /// `lastModifiedAge` (`CachedResponseMetadata.lastModifiedAge`). Never negative, NaN or
    /// above 2^31 seconds.
    public func lifetime(lastModifiedAge: TimeInterval?) -> TimeInterval {
        let seconds: TimeInterval
        switch self {
        case .fixed(let lifetime):
            seconds = lifetime
        case .lastModifiedFraction(let fraction, let cap, let withoutLastModified):
            if let lastModifiedAge, !lastModifiedAge.isNaN {
                let fractionValue = fraction.isNaN ? 0 : fraction
                seconds = min(max(lastModifiedAge, 0) * max(fractionValue, 0), cap)
            } else {
                seconds = withoutLastModified ?? cap
            }
        }
        guard !seconds.isNaN else { return 0 }
        return min(max(seconds, 0), CacheControl.maximumDeltaSeconds)
    }

    /// Status codes that are heuristically cacheable by default (RFC 9110 15.1).
    public static let heuristicallyCacheableStatusCodes: Set<Int> = [
        200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501,
    ]

    /// Whether a response with `statusCode` may be given a heuristic lifetime (RFC 9111 4.2.2):
    /// its status is heuristically cacheable, or it carries `Cache-Control: public`.
    /// `302`, `303` and `307` redirects are not, so without explicit freshness they are stale at once.
    public static func isHeuristicallyCacheable(statusCode: Int, isPublic: Bool) -> Bool {
        isPublic || heuristicallyCacheableStatusCodes.contains(statusCode)
    }
}
