import Foundation

/// The images views have shown since launch, kept for display whatever their HTTP freshness:
/// HTML's "list of available images", a display rule above the HTTP cache. An image whose
/// response the memory cache may not serve (`no-cache`, `max-age=0`, or expired) is still shown
/// again at once when its view returns, and revalidated behind it (``ImageLoader``); a load
/// through ``ImagePipeline/image(for:)`` never reads these copies, so the pipeline's RFC 9111
/// semantics are unchanged. `no-store` responses are never kept.
///
/// The copies live in the memory cache under a key of their own (evicted, trimmed on memory
/// warnings and removed by ``ImagePipeline/removeCachedImage(for:)`` with every other copy),
/// and only when the memory cache itself will not answer: an image it does not keep at all
/// (`no-cache`, `max-age=0`) is kept once shown; an image it keeps until an expiry is kept once
/// its view lets go of it (off screen past the grace period, reused, replaced), so an image on
/// screen is never counted twice; an image without an expiry never needs a copy.
extension ImageJobs {
    /// Keeps `response`'s image available for display, if a view may show it again whatever
    /// its freshness: `released` when the view is letting go of it.
    func keepShown(_ response: ImageResponse, released: Bool) {
        switch response.displayRetention {
        case .never: return
        case .whenReleased: if !released { return }
        case .whenShown: break
        }
        // A response that varies (Vary) has no copy for display: its key would not say for whom.
        guard let memoryCache, variants.lookupKey(for: response.request) == nil else { return }
        memoryCache.setValue(response.image, forKey: Self.shownKey(ImageCacheKey(response.request)), cost: response.image.cost)
    }

    /// The image a view showed for `request` earlier, kept for display (stale or not); `nil`
    /// when there is none or the request asks not to read memory.
    func shownImage(for request: ImageRequest) -> DecodedImage? {
        guard let memoryCache,
              request.options.isDisjoint(with: [.skipMemoryCache, .reloadIgnoringLocalCacheData]),
              !request.cacheDirectives.noStore
        else {
            return nil
        }
        return resolver.withKeyed(request) { keyed in
            // Never another variant's image: a response that varies has no copy for display.
            guard variants.lookupKey(for: keyed) == nil else { return nil }
            return memoryCache.value(forKey: Self.shownKey(ImageCacheKey(keyed)))
        }
    }

    /// When an image decoded for `request` from `data` is kept for display: never for a
    /// response that may not be stored (`no-store`, `Vary: *`) or one the memory cache keeps
    /// without an expiry; once shown when the memory cache does not keep it; once its view lets
    /// go of it when the memory cache keeps it until an expiry.
    static func displayRetention(_ data: ImageDataResponse, request: ImageRequest) -> DisplayRetention {
        guard data.metadata != nil, !request.options.contains(.skipMemoryCache), !request.cacheDirectives.noStore else { return .never }
        switch data.memoryLifetime {
        case .unlimited: return .never
        case .doNotKeep: return .whenShown
        case .until: return .whenReleased
        }
    }

    /// Whether the memory cache holds `response`'s image under its request's own key, so a
    /// view that lets go of it gets it back from memory at once (never for a stale image or a
    /// response that varies, whose copies are not under that key).
    func memoryHolds(_ response: ImageResponse) -> Bool {
        guard let memoryCache, !response.isStale, variants.lookupKey(for: response.request) == nil else { return false }
        return resolver.withKeyed(response.request) { memoryCache.containsValue(forKey: ImageCacheKey($0)) }
    }

    /// Forgets the image kept for display for `request` (its bytes changed).
    func forgetShownImage(for request: ImageRequest) {
        guard let memoryCache else { return }
        _ = resolver.withKeyed(request) { memoryCache.removeValue(forKey: Self.shownKey(ImageCacheKey($0))) }
    }

    /// A view shows `request`'s image: its size is remembered for ``otherSizeImage(for:)``.
    func noteShown(_ request: ImageRequest) {
        resolver.withKeyed(request) { shownSizes.record($0) }
    }

    /// The image of `request` (its URL and processors) at the size a view last showed it, when
    /// that is another size and it is still in memory (or kept for display): what a view shows
    /// until its own arrives instead of a placeholder. Counts nothing in the statistics.
    func otherSizeImage(for request: ImageRequest) -> DecodedImage? {
        guard let memoryCache,
              request.options.isDisjoint(with: [.skipMemoryCache, .reloadIgnoringLocalCacheData, .reloadRevalidatingCacheData]),
              !request.cacheDirectives.noStore
        else {
            return nil
        }
        return resolver.withKeyed(request) { keyed -> DecodedImage? in
            guard variants.lookupKey(for: keyed) == nil, let shape = shownSizes.shape(for: keyed),
                  shape.size != keyed.targetPixelSize || (keyed.targetPixelSize != nil && shape.mode != keyed.contentMode)
            else {
                return nil
            }
            var key = ImageCacheKey(keyed)
            key.targetPixelSize = shape.size
            key.contentMode = shape.mode
            return memoryCache.value(forKey: key) ?? memoryCache.value(forKey: Self.shownKey(key))
        }
    }

    /// The key a shown image is kept under: its memory key, marked.
    static func shownKey(_ key: ImageCacheKey) -> ImageCacheKey {
        var key = key
        key.processorIdentifiers.append(shownMarker)
        return key
    }

    private static let shownMarker = "cachedimage.shown"
}

/// When a view's image is kept for display (``ImageJobs/keepShown(_:released:)``).
enum DisplayRetention: Sendable, Hashable {
    case never
    /// The memory cache does not keep it: kept as soon as a view shows it.
    case whenShown
    /// The memory cache keeps it until an expiry: kept when its view lets go of it.
    case whenReleased
}

extension ImagePipeline {
    /// Keeps the image of `response`, which a view shows (or, `released`, is letting go of),
    /// available for display (see ``ImageLoader``): shown again at once when the view returns,
    /// whatever its freshness.
    package func keepShown(_ response: ImageResponse, released: Bool = false) {
        jobs.keepShown(response, released: released)
    }

    /// The image a view showed for `request` since launch, stale or not, for display only
    /// (revalidate it behind it); never what ``image(for:)`` answers.
    package func shownImage(for request: ImageRequest) -> DecodedImage? {
        jobs.shownImage(for: request)
    }

    /// Whether the memory cache holds `response`'s image under its request's key: a view off
    /// screen lets go of it at once, since a return finds it there (``ImageLoader``).
    package func memoryHolds(_ response: ImageResponse) -> Bool {
        jobs.memoryHolds(response)
    }

    /// Forgets the image kept for display for `request` (its bytes changed).
    package func forgetShownImage(for request: ImageRequest) {
        jobs.forgetShownImage(for: request)
    }

    /// A view shows the image of `request` (its size is what ``otherSizeImage(for:)`` looks up).
    package func noteShown(_ request: ImageRequest) {
        jobs.noteShown(request)
    }

    /// The image of `request` at the size a view last showed it, when that is another size and
    /// it is in memory: shown until `request`'s own image arrives (a view's first `body` before
    /// its layout gives a size, a view asking for a larger size). Display only.
    package func otherSizeImage(for request: ImageRequest) -> DecodedImage? {
        jobs.otherSizeImage(for: request)
    }
}
