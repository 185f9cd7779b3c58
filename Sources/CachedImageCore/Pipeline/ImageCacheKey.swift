/// Identifies a decoded image in the memory cache: the request's cache key plus the size it was
/// decoded for (the same bytes decoded for two sizes are two memory entries, one disk entry).
public struct ImageCacheKey: Hashable, Sendable {
    /// The request's ``ImageRequest/cacheKey``.
    public var cacheKey: String
    /// The request's ``ImageRequest/targetSize``.
    public var targetSize: PixelSize?

    public init(cacheKey: String, targetSize: PixelSize? = nil) {
        self.cacheKey = cacheKey
        self.targetSize = targetSize
    }

    public init(_ request: ImageRequest) {
        self.init(cacheKey: request.cacheKey, targetSize: request.targetSize)
    }
}
