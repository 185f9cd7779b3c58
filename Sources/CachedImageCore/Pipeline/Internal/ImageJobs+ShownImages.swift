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
/// and only for images the memory cache would not keep without an expiry: nothing is held twice
/// for an image the cache keeps anyway.
extension ImageJobs {
    /// Keeps `response`'s image available for display, if a view may show it again whatever
    /// its freshness.
    func keepShown(_ response: ImageResponse) {
        guard response.keepsForDisplay, let memoryCache else { return }
        memoryCache.setValue(response.image, forKey: Self.shownKey(ImageCacheKey(response.request)), cost: response.image.cost)
    }

    /// The image a view showed for `request` earlier, kept for display (stale or not); `nil`
    /// when there is none or the request asks not to read memory.
    func shownImage(for request: ImageRequest) -> DecodedImage? {
        guard let memoryCache,
              request.options.isDisjoint(with: [.skipMemoryCache, .reloadIgnoringCachedData]),
              !request.cacheDirectives.noStore
        else {
            return nil
        }
        return resolver.withKeyed(request) { memoryCache.value(forKey: Self.shownKey(ImageCacheKey($0))) }
    }

    /// Whether an image decoded for `request` from `data` is kept for display once shown: the
    /// response was storable (not `no-store`, not `Vary: *`) and the memory cache keeps it
    /// only until it is stale, or not at all.
    static func keepsForDisplay(_ data: ImageDataResponse, request: ImageRequest) -> Bool {
        guard data.metadata != nil, !request.options.contains(.skipMemoryCache), !request.cacheDirectives.noStore else { return false }
        if case .unlimited = data.memoryLifetime { return false }
        return true
    }

    /// The key a shown image is kept under: its memory key, marked.
    static func shownKey(_ key: ImageCacheKey) -> ImageCacheKey {
        var key = key
        key.processorIdentifiers.append(shownMarker)
        return key
    }

    private static let shownMarker = "cachedimage.shown"
}

extension ImagePipeline {
    /// Keeps the image of `response`, which a view shows, available for display (see
    /// ``ImageLoader``): shown again at once when the view returns, whatever its freshness.
    package func keepShown(_ response: ImageResponse) {
        jobs.keepShown(response)
    }

    /// The image a view showed for `request` since launch, stale or not, for display only
    /// (revalidate it behind it); never what ``image(for:)`` answers.
    package func shownImage(for request: ImageRequest) -> DecodedImage? {
        jobs.shownImage(for: request)
    }
}
