import Foundation

/// Pinned images: disk entries that eviction by size never removes (offline avatars,
/// onboarding art), within ``Configuration/pinnedDiskCacheSizeLimit``, a budget of their own on
/// top of ``Configuration/diskCacheSizeLimit``.
///
/// ```swift
/// try pipeline.storeImageData(avatarData, forKey: "avatar", pinned: true) // your own bytes
/// try pipeline.pinImage(for: ImageRequest(url: artURL))                   // bytes already downloaded
/// let request = ImageRequest(url: artURL, options: [.pinOnDisk])          // pinned once downloaded
/// pipeline.unpinImage(forKey: "avatar")                                   // evictable again
/// ```
///
/// A pin survives a relaunch and holds for every process sharing the cache directory (an app
/// and its extensions): another process's sweep never deletes a pinned entry either. A pinned
/// image keeps its freshness rules (a stale one is still revalidated; a new version stays
/// pinned within the pinned budget, and is stored unpinned past it). Removals end pins: ``removeImage(forKey:)``, ``removeCachedImage(for:)``,
/// ``removeAllCachedImages()`` and `diskCache.removeAll()` remove pinned images too. The memory
/// cache keeps no pins: a pinned image's decoded copy is evicted like any other and decoded
/// again from disk.
extension ImagePipeline {
    /// Pins the image stored under `key` (``storeImageData(_:forKey:)``): eviction by size never
    /// removes it until ``unpinImage(forKey:)``. Pinning a pinned image does nothing. Waits for
    /// the disk cache's index to load.
    ///
    /// - Throws: ``Error/notCached(_:)`` when nothing is stored under `key`;
    ///   ``Error/pinnedSizeLimitExceeded(url:size:pinnedSize:limit:)`` when it would take the
    ///   pinned images past ``Configuration/pinnedDiskCacheSizeLimit`` (nothing changes);
    ///   ``Error/diskCacheUnavailable(url:openError:)`` without a disk cache. `url` is the key's
    ///   ``customKeyURL(_:)``.
    public func pinImage(forKey key: String) throws {
        try pin(cacheKey: Self.customCacheKey(key), url: Self.customKeyURL(key))
    }

    /// Returns the image stored under `key` to the disk cache's least-recently-used sweep: it
    /// counts against ``Configuration/diskCacheSizeLimit`` again, at its place in the use order,
    /// and may be evicted at once if that limit is passed. Does nothing if it is not pinned.
    public func unpinImage(forKey key: String) {
        diskCache?.unpinEntry(forKey: Self.customCacheKey(key))
    }

    /// Pins the downloaded bytes `request` reads from the disk cache (its URL's, under its cache
    /// key): eviction by size never removes them until ``unpinImage(for:)``. To pin what a request
    /// downloads, give it ``ImageRequest/Options/pinOnDisk``.
    ///
    /// - Throws: ``Error/notCached(_:)`` when nothing is stored for the request;
    ///   ``Error/pinnedSizeLimitExceeded(url:size:pinnedSize:limit:)`` when it would take the
    ///   pinned images past ``Configuration/pinnedDiskCacheSizeLimit`` (nothing changes);
    ///   ``Error/diskCacheUnavailable(url:openError:)`` without a disk cache.
    public func pinImage(for request: ImageRequest) throws {
        try pin(cacheKey: jobs.resolver.keyed(request).cacheKey, url: request.url ?? ImageRequest.missingURL)
    }

    /// Returns the bytes `request` reads from the disk cache to the least-recently-used sweep
    /// (see ``unpinImage(forKey:)``).
    public func unpinImage(for request: ImageRequest) {
        diskCache?.unpinEntry(forKey: jobs.resolver.keyed(request).cacheKey)
    }

    private func pin(cacheKey: String, url: URL) throws {
        guard let diskCache else {
            throw Error.diskCacheUnavailable(url: url, openError: diskCacheOpenError)
        }
        try Self.check(diskCache.pinEntry(forKey: cacheKey, limit: configuration.pinnedDiskCacheSizeLimit), url: url)
    }

    /// The error for a pin the disk cache refused.
    static func check(_ outcome: DiskCache.PinOutcome, url: URL) throws {
        switch outcome {
        case .pinned:
            return
        case .notStored:
            throw Error.notCached(url)
        case .overLimit(let size, let pinnedSize, let limit):
            throw Error.pinnedSizeLimitExceeded(url: url, size: size, pinnedSize: pinnedSize, limit: limit)
        }
    }
}
