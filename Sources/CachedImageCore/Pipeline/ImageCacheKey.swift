/// Identifies a decoded image in the memory cache: the request's cache key plus the size it was
/// decoded for (with its content mode) and the processors it went through (the same bytes
/// decoded for two sizes, or processed two ways, are two memory entries, one disk entry).
public struct ImageCacheKey: Hashable, Sendable {
    /// The request's ``ImageRequest/cacheKey``.
    public var cacheKey: String
    /// The request's ``ImageRequest/targetSize``.
    public var targetSize: PixelSize?
    /// The request's ``ImageRequest/contentMode`` when it has a target size (`nil` without one:
    /// the mode changes nothing then).
    public var contentMode: ImageContentMode?
    /// The identifiers of the request's ``ImageRequest/processors``, in order.
    public var processorIdentifiers: [String]

    public init(
        cacheKey: String,
        targetSize: PixelSize? = nil,
        contentMode: ImageContentMode = .aspectFill,
        processorIdentifiers: [String] = []
    ) {
        self.cacheKey = cacheKey
        self.targetSize = targetSize
        self.contentMode = targetSize == nil ? nil : contentMode
        self.processorIdentifiers = processorIdentifiers
    }

    public init(_ request: ImageRequest) {
        self.init(
            cacheKey: request.cacheKey,
            targetSize: request.targetSize,
            contentMode: request.contentMode,
            processorIdentifiers: request.processorChain.identifiers
        )
    }
}
