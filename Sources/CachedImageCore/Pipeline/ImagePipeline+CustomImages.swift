import Foundation

/// Your own images under your own keys: a photo the user just took, an image your app renders,
/// bytes from another API. They live in the pipeline's memory and disk caches beside downloaded
/// images, survive a relaunch, and get the same integrity guarantees (validated as a complete
/// image within `maximumPixelCount` before they are stored; atomic, checksummed disk writes; a torn or
/// corrupt file reads as a miss, never as a wrong image).
///
/// ```swift
/// try pipeline.storeImageData(jpegData, forKey: "avatar-\(user.id)")
/// // Later, even after a relaunch:
/// let avatar = try await pipeline.image(forKey: "avatar-\(user.id)", targetSize: CGSize(width: 40, height: 40))
/// ```
///
/// **Keys** are namespaced (``customCacheKey(_:)``), so your key never collides with a URL's
/// cache key, even if it looks like a URL.
///
/// **Eviction**: custom entries share the caches' budgets and policies with downloaded images,
/// unless pinned. The disk cache sweeps least-recently-used entries when it exceeds
/// `diskCacheSizeLimit`, and the memory cache evicts decoded images under its cost limit and on
/// memory warnings; a custom entry read often stays, one never read may go. Custom entries never
/// expire by freshness (they are stored `immutable` and fresh for a century), so only size-based
/// eviction, ``removeImage(forKey:)``, `removeAllCachedImages()` or `diskCache.removeAll()`
/// remove them.
///
/// **Pinned** entries (``storeImageData(_:forKey:pinned:)``, ``pinImage(forKey:)``) are never
/// evicted by size, by this process or another one sharing the directory: they count against
/// `pinnedDiskCacheSizeLimit`, a budget of their own, until ``unpinImage(forKey:)`` returns them
/// to the least-recently-used sweep. ``removeImage(forKey:)``, `removeAllCachedImages()` and
/// `diskCache.removeAll()` remove them too. Pinning is about the bytes on disk: the decoded copy
/// in memory is evicted like any other and decoded again from disk. Keep the originals you
/// cannot afford to lose in your own storage; the cache is a cache.
extension ImagePipeline {
    /// The cache key under which ``storeImageData(_:forKey:)`` keeps `key`'s bytes:
    /// `cachedimage-key:` followed by `key`. A request for a URL that starts the same way is
    /// keyed `url:` and the URL, so the two never collide.
    public static func customCacheKey(_ key: String) -> String {
        customKeyPrefix + key
    }

    /// The scheme of ``customKeyURL(_:)``.
    static let customKeyScheme = "cachedimage-key"
    /// What every custom cache key starts with.
    static let customKeyPrefix = customKeyScheme + ":"

    /// Validates `data` as a complete image and stores it on disk under `key`, dropping every
    /// copy made from the key's previous bytes (decoded in memory at any size, processed on
    /// disk), so the next read shows the new image. The disk write happens off the caller's
    /// thread (the bytes are readable at once); `diskCache?.flush()` waits for it. Views already
    /// showing the key keep their image until they load again (give them a new `.id`).
    ///
    /// - Parameters:
    ///   - data: The image's encoded bytes (any format ``ImageInfo`` or the platform decoder recognises).
    ///   - key: Your key; namespaced with ``customCacheKey(_:)``.
    /// - Returns: The stored image's format and size.
    /// - Throws: ``Error/emptyResponse(url:)``, ``Error/notAnImage(url:contentType:)``,
    ///   ``Error/imageTooLarge(url:size:maximumPixelCount:)`` or ``Error/truncatedResponse(url:received:expected:)``
    ///   (with ``customKeyURL(_:)`` as the URL); ``Error/diskCacheUnavailable(url:openError:)``
    ///   when the pipeline has no disk cache. Nothing is stored then.
    @discardableResult
    public func storeImageData(_ data: Data, forKey key: String) throws -> ImageInfo {
        try storeImageData(data, forKey: key, pinned: false)
    }

    /// ``storeImageData(_:forKey:)``, pinned when `pinned`: eviction by size never removes the
    /// entry (see ``pinImage(forKey:)``). A key already pinned stays pinned whatever `pinned`
    /// says while the pinned images stay within `pinnedDiskCacheSizeLimit` with the new bytes
    /// (``unpinImage(forKey:)`` ends a pin); past it, they are stored unpinned (`pinned: false`)
    /// or not at all (`pinned: true` throws). Waits
    /// for the disk cache's index to load (a relaunch's first store, a moment).
    ///
    /// ```swift
    /// try pipeline.storeImageData(avatarData, forKey: "avatar-\(user.id)", pinned: true)
    /// ```
    ///
    /// - Throws: what ``storeImageData(_:forKey:)`` throws, and
    ///   ``Error/pinnedSizeLimitExceeded(url:size:pinnedSize:limit:)`` when pinning it would
    ///   take the pinned images past `pinnedDiskCacheSizeLimit`. Nothing is stored then.
    @discardableResult
    public func storeImageData(_ data: Data, forKey key: String, pinned: Bool) throws -> ImageInfo {
        guard let diskCache else {
            throw Error.diskCacheUnavailable(url: Self.customKeyURL(key), openError: diskCacheOpenError)
        }
        let info = try validateCustomImage(data, key: key)
        let cacheKey = Self.customCacheKey(key)
        jobs.dropCopies(of: cacheKey)
        let metadata = CachedResponseMetadata(
            contentType: info.format.mimeType,
            storedAt: configuration.clock.now,
            freshnessLifetime: Self.customImageLifetime,
            isImmutable: true
        )
        if pinned {
            let outcome = diskCache.storePinned(data, metadata: metadata, forKey: cacheKey, limit: configuration.pinnedDiskCacheSizeLimit)
            try Self.check(outcome, url: Self.customKeyURL(key))
        } else {
            diskCache.store(data, metadata: metadata, forKey: cacheKey, pinnedLimit: configuration.pinnedDiskCacheSizeLimit)
        }
        return info
    }

    /// The decoded image stored under `key` for a view `targetSize` points large, from the
    /// memory cache only (synchronous, for a first frame); `nil` when it is not in memory.
    public func memoryCachedImage(forKey key: String, targetSize: CGSize? = nil) -> DecodedImage? {
        memoryCachedImage(for: ImageRequest(key: key, targetSize: targetSize))
    }

    /// The image stored under `key`: from memory, else from disk (decoded to fit `targetSize`,
    /// in points at the main screen's scale, then kept in memory), through ``ImageRequest/init(key:priority:targetSize:contentMode:options:processors:)``.
    /// Never touches the network.
    ///
    /// - Throws: ``Error/notCached(_:)`` when nothing (or nothing intact) is stored under `key`;
    ///   ``Error/decodingFailed(url:underlying:)`` with the decoder's error.
    public func image(forKey key: String, targetSize: CGSize? = nil) async throws -> DecodedImage {
        try await image(for: ImageRequest(key: key, targetSize: targetSize)).image
    }

    /// Whether bytes are stored on disk under `key` (without reading them).
    public func containsImage(forKey key: String) -> Bool {
        diskCache?.containsEntry(forKey: Self.customCacheKey(key)) ?? false
    }

    /// Removes `key`'s bytes from disk and every copy made from them (decoded in memory,
    /// processed on disk).
    public func removeImage(forKey key: String) {
        let cacheKey = Self.customCacheKey(key)
        jobs.dropCopies(of: cacheKey)
        diskCache?.removeEntry(forKey: cacheKey)
    }

    /// The URL that errors about `key` carry: `cachedimage-key:` and the percent-encoded key.
    public static func customKeyURL(_ key: String) -> URL {
        let encoded = key.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
        return URL(string: customKeyScheme + ":" + encoded) ?? URL(string: customKeyScheme + ":")!
    }

    // MARK: Internals

    /// A century: custom entries are never stale (tools such as `cachedimage clear --stale-only`
    /// keep them).
    static let customImageLifetime: TimeInterval = 100 * 365 * 24 * 60 * 60

    /// The checks a downloaded body gets: not empty, a recognised image (or one a registered
    /// decoder takes), within the pixel limit, a complete container. Nothing vouches that the
    /// app's bytes arrived whole (its own download may have been cut), so a container whose end
    /// is missing is refused as truncated, as a close-delimited download's is.
    private func validateCustomImage(_ data: Data, key: String) throws -> ImageInfo {
        try ResponseValidator(
            maximumPixelCount: configuration.maximumPixelCount, registry: configuration.decoderRegistry, decoder: configuration.decoder
        ).validate(data, url: Self.customKeyURL(key), contentType: nil, expectedLength: nil, transfer: .mayBeCut)
    }
}
