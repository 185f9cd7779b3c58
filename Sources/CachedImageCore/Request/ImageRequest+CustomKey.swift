import Foundation

extension ImageRequest {
    /// A request for the image your app stored under `key` with
    /// ``ImagePipeline/storeImageData(_:forKey:)``: served from the memory cache,
    /// else from disk (decoded to `targetSize`, in points: ``targetSize``), never from the network. Nothing stored under
    /// `key` fails with ``ImagePipeline/Error/notCached(_:)``.
    ///
    /// ```swift
    /// try pipeline.storeImageData(jpegData, forKey: "avatar-\(user.id)")
    /// let request = ImageRequest(key: "avatar-\(user.id)", targetSize: CGSize(width: 40, height: 40))
    /// let avatar = try await pipeline.image(for: request)
    /// ```
    ///
    /// Its URL is ``ImagePipeline/customKeyURL(_:)`` and its cache key
    /// ``ImagePipeline/customCacheKey(_:)``, so it finds exactly what `storeImageData` stored.
    /// It loads whatever ``ImagePipeline/Configuration/allowedSchemes`` says, and reload options
    /// read the caches again: it never leaves the device. (Only this initialiser makes such a
    /// request: `ImageRequest(url:)` with a `cachedimage-key:` URL, say from a server's data,
    /// fails with ``ImagePipeline/Error/invalidURL(_:)`` like any scheme not allowed.)
    public init(
        key: String,
        priority: Priority = .normal,
        targetSize: CGSize? = nil,
        contentMode: ImageContentMode = .aspectFill,
        options: Options = [],
        processors: [any ImageProcessing] = []
    ) {
        self.init(
            url: ImagePipeline.customKeyURL(key),
            cacheKey: ImagePipeline.customCacheKey(key),
            priority: priority,
            targetSize: targetSize,
            contentMode: contentMode,
            options: options,
            processors: processors
        )
        readsStoredImage = true
    }
}
