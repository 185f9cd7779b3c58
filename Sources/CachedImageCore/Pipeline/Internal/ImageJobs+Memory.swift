import Foundation

/// The memory stage: lookups (the plain key, then the variant key a varying response was kept
/// under), stores under the key a response's `Vary` calls for, and removal.
extension ImageJobs {
    /// The memory cache's image for `request`, keyed as a task would key it (first frame).
    func memoryCachedImage(for request: ImageRequest) -> DecodedImage? {
        resolver.withKeyed(request) { lookUpMemory(for: $0, counting: .hitsOnly) { image, _ in image } }
    }

    /// Removes what the caches hold for `request`: every copy made from its bytes, the bytes,
    /// and any failure remembered for it.
    func removeCachedImage(for request: ImageRequest) {
        let request = resolver.keyed(request)
        dropCopies(of: request.cacheKey)
        resolver.diskCache?.removeEntry(forKey: request.cacheKey)
        fetcher.forgetFailure(forKey: request.cacheKey)
        fetcher.forgetPartialDownload(forKey: request.cacheKey)
    }

    /// Drops everything made from `cacheKey`'s bytes, so none of it answers again: decoded
    /// images in memory at every size, content mode, processor chain and `Vary` variant (and an
    /// animated view's bytes), and the processed copies on disk. A scan of the memory cache's
    /// keys: for removals, never on a load.
    func dropCopies(of cacheKey: String) {
        memoryCache?.removeValues { $0.cacheKey == cacheKey || MemoryVariants.isVariant($0, of: cacheKey) }
        variants.forget(cacheKey)
        derivedImages?.removeDerivedImages(forKey: cacheKey)
    }

    /// What a memory lookup adds to the statistics: a task's first lookup counts its miss; the
    /// first-frame probe and a job's second look count only hits.
    enum LookupCounting {
        case hitsAndMisses
        case hitsOnly
    }

    /// An image found in memory and the key it was found under.
    struct MemoryHit: Sendable {
        var image: DecodedImage
        var key: ImageCacheKey
    }

    /// The memory cache's image for `request` (already keyed by the resolver). Reloads never
    /// read memory, nor do requests whose own directives limit freshness (`max-age`,
    /// `min-fresh`, `max-stale`: a decoded image does not carry its age). The plain key first;
    /// only when it misses, the request's variant key if a response for this cache key varied
    /// (``MemoryVariants``).
    func memoryImage(for request: ImageRequest, counting: LookupCounting) -> MemoryHit? {
        lookUpMemory(for: request, counting: counting) { MemoryHit(image: $0, key: $1) }
    }

    /// ``memoryImage(for:counting:)``'s lookup, handing the image found and its key to `found`
    /// (inlined into each caller, so the first-frame probe builds no ``MemoryHit``). Each image
    /// is moved, not copied: `DecodedImage` holds an existential, so every copy of an optional
    /// one goes through the runtime's generic value witnesses.
    @inline(__always)
    private func lookUpMemory<Found>(
        for request: ImageRequest, counting: LookupCounting, _ found: (consuming DecodedImage, consuming ImageCacheKey) -> Found
    ) -> Found? {
        guard let memoryCache,
              request.options.isDisjoint(with: [.skipMemoryCache, .reloadIgnoringLocalCacheData, .reloadRevalidatingCacheData]),
              !request.cacheDirectives.constrainsFreshness
        else {
            return nil
        }
        let key = ImageCacheKey(request)
        if let image = memoryCache.value(forKey: key) {
            instrumentation.record(.memoryLookup(hit: true))
            return found(image, key)
        }
        if let variantKey = variants.lookupKey(for: request), let image = memoryCache.value(forKey: variantKey) {
            instrumentation.record(.memoryLookup(hit: true))
            return found(image, variantKey)
        }
        if counting == .hitsAndMisses {
            instrumentation.record(.memoryLookup(hit: false))
        }
        return nil
    }

    /// A memory hit as a job's result, with the response recorded for it. An image kept from an
    /// HTTP response may expire from memory: a view letting go of it keeps it for display.
    func memoryResult(_ hit: MemoryHit) -> DecodedResult {
        let httpResponse = responseRecords.response(forKey: hit.key, at: clock.now)
        return DecodedResult(
            image: hit.image, source: .memory, bytesDownloaded: 0, isCoalesced: false,
            httpResponse: httpResponse, displayRetention: httpResponse == nil ? .never : .whenReleased
        )
    }

    /// Keeps `image` in memory for `request` as `lifetime` allows, under the key its response's
    /// `Vary` calls for, with the response recorded for later hits.
    func keepInMemory(
        _ image: DecodedImage, for request: ImageRequest, metadata: CachedResponseMetadata?, lifetime: MemoryCacheLifetime
    ) {
        guard let memoryCache, !request.options.contains(.skipMemoryCache) else { return }
        let key = variants.storageKey(for: request, vary: metadata?.vary ?? [])
        if key != ImageCacheKey(request) {
            // A varying response: an older image under the plain key must not answer for it.
            memoryCache.removeValue(forKey: ImageCacheKey(request))
        }
        // Bytes an animated view kept for an older response must not play behind this image.
        memoryCache.removeValue(forKey: Self.animationBytesKey(request))
        switch lifetime {
        case .unlimited:
            memoryCache.setValue(image, forKey: key, cost: image.cost)
        case .until(let expiry):
            memoryCache.setValue(image, forKey: key, cost: image.cost, expiresAt: expiry)
        case .doNotKeep:
            // `no-store`, `no-cache` or already stale: an older image must not outlive it either.
            memoryCache.removeValue(forKey: key)
            responseRecords.remove(key)
            return
        }
        responseRecords.set(metadata, forKey: key)
    }
}
