import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a request asks of the caches: its own `Cache-Control` request directives
/// (RFC 9111 5.2.1), `Pragma: no-cache` (5.4) and its `URLRequest.cachePolicy`.
///
/// The pipeline reads them from ``ImageRequest/urlRequest`` and maps them onto its behaviour
/// (the table is in the DocC article *Request cache directives*):
/// - `no-cache`, `Pragma: no-cache` (without `Cache-Control`), `.reloadRevalidatingCacheData`:
///   ``ImageRequest/Options/reloadRevalidatingCacheData``.
/// - `.reloadIgnoringLocalCacheData`, `.reloadIgnoringLocalAndRemoteCacheData`:
///   ``ImageRequest/Options/reloadIgnoringLocalCacheData``.
/// - `.returnCacheDataDontLoad`: ``ImageRequest/Options/returnCacheDataDontLoad``.
/// - `only-if-cached`: a stored response that the request's other directives accept, else
///   ``ImagePipeline/Error/notCached(_:)``; never the network.
/// - `max-age`, `min-fresh`, `max-stale`, `.returnCacheDataElseLoad`: limit (or widen) which
///   stored responses are fresh enough; the memory cache is not read for such a request,
///   because a decoded image does not carry its age (the disk entry does).
/// - `no-store`: nothing of the response is stored, neither on disk nor in memory, and no
///   stored response answers the request.
struct RequestCacheDirectives: Sendable, Hashable {
    /// `max-age`: the oldest stored response the request accepts, in seconds.
    var maxAge: TimeInterval?
    /// `max-stale`: how stale a stored response may be, in seconds (`.infinity`: any staleness).
    var maxStale: TimeInterval?
    /// `min-fresh`: how long a stored response must stay fresh, in seconds.
    var minFresh: TimeInterval?
    /// `no-cache` / `Pragma: no-cache`: revalidate before using a stored response.
    var noCache = false
    /// `no-store`: store nothing of the response.
    var noStore = false
    /// `only-if-cached`: never the network.
    var onlyIfCached = false
    /// `.returnCacheDataElseLoad`: any stored response, however old, else the network.
    var acceptsAnyStoredResponse = false
    /// `.reloadIgnoringLocalCacheData` and `.reloadIgnoringLocalAndRemoteCacheData`.
    var ignoresStoredResponses = false
    /// `.returnCacheDataDontLoad`.
    var cacheOnly = false

    /// No directives.
    static let none = RequestCacheDirectives()

    /// The directives of `urlRequest` (its `Cache-Control`, `Pragma` and `cachePolicy`).
    init(_ urlRequest: URLRequest) {
        switch urlRequest.cachePolicy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData: ignoresStoredResponses = true
        case .reloadRevalidatingCacheData: noCache = true
        case .returnCacheDataElseLoad: acceptsAnyStoredResponse = true
        case .returnCacheDataDontLoad: cacheOnly = true
        default: break
        }
        let cacheControlValue = urlRequest.value(forHTTPHeaderField: "Cache-Control")
        if let cacheControlValue {
            let cacheControl = CacheControl(cacheControlValue)
            // `max-age=0` is how browsers ask for a revalidation: the same as `no-cache`.
            maxAge = cacheControl.maxAge == 0 ? nil : cacheControl.maxAge
            maxStale = cacheControl.maxStale
            minFresh = cacheControl.minFresh
            noCache = noCache || cacheControl.noCache || cacheControl.maxAge == 0
            noStore = cacheControl.noStore
            onlyIfCached = cacheControl.onlyIfCached
        } else if let pragma = urlRequest.value(forHTTPHeaderField: "Pragma"),
                  pragma.lowercased().split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "no-cache" }) {
            noCache = true
        }
    }

    init() {}

    /// Whether the request states nothing the caches must follow.
    var isEmpty: Bool { self == .none }

    /// Whether the request changes which stored responses count as fresh, so that only a
    /// stored entry with its age (the disk's) can answer it, not a decoded image in memory.
    var constrainsFreshness: Bool {
        maxAge != nil || maxStale != nil || minFresh != nil || acceptsAnyStoredResponse
    }

    /// The ``ImageRequest/Options`` these directives imply.
    var impliedOptions: ImageRequest.Options {
        var options: ImageRequest.Options = []
        // `no-store`: nothing of this exchange is stored, and (as fetch's `no-store` mode and
        // Firefox do) nothing stored answers it.
        if ignoresStoredResponses || noStore { options.insert(.reloadIgnoringLocalCacheData) }
        if noCache { options.insert(.reloadRevalidatingCacheData) }
        if cacheOnly { options.insert(.returnCacheDataDontLoad) }
        return options
    }

    /// Whether a stored response with `metadata`, `fresh` or not by the response's own rules,
    /// may answer this request at `now` without the server (RFC 9111 5.2.1.1-5.2.1.3):
    /// `max-age` caps its current age, `min-fresh` demands that much freshness left,
    /// `max-stale` accepts a stale one (never a `must-revalidate` or `no-cache` one), and
    /// `.returnCacheDataElseLoad` accepts any.
    func accepts(_ metadata: CachedResponseMetadata, fresh: Bool, at now: Date, heuristic: HeuristicFreshness) -> Bool {
        if acceptsAnyStoredResponse { return true }
        let age = metadata.currentAge(at: now)
        if let maxAge, age > maxAge { return false }
        let lifetime = metadata.lifetime(heuristic: heuristic)
        if let minFresh, lifetime - age < minFresh { return false }
        if fresh { return true }
        guard let maxStale, !metadata.mustRevalidate, !metadata.noCache else { return false }
        return age - lifetime <= maxStale
    }
}
