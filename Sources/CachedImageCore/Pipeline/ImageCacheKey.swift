/// Identifies a decoded image in the memory cache: the request's cache key plus the size it was
/// decoded for (with its content mode) and the processors it went through (the same bytes
/// decoded for two sizes, or processed two ways, are two memory entries, one disk entry).
public struct ImageCacheKey: Hashable, Sendable {
    /// The request's ``ImageRequest/cacheKey``.
    public var cacheKey: String
    /// The request's ``ImageRequest/targetPixelSize``.
    public var targetPixelSize: PixelSize?
    /// The request's ``ImageRequest/contentMode`` when it has a target size (`nil` without one:
    /// the mode changes nothing then).
    public var contentMode: ImageContentMode?
    /// The identifiers of the request's ``ImageRequest/processors``, in order.
    public var processorIdentifiers: [String]

    /// The key of `cacheKey`'s bytes decoded at `targetPixelSize` (as `contentMode`) and processed by
    /// `processorIdentifiers`, in order.
    public init(
        cacheKey: String,
        targetPixelSize: PixelSize? = nil,
        contentMode: ImageContentMode = .aspectFill,
        processorIdentifiers: [String] = []
    ) {
        self.cacheKey = cacheKey
        self.targetPixelSize = targetPixelSize
        self.contentMode = targetPixelSize == nil ? nil : contentMode
        self.processorIdentifiers = processorIdentifiers
    }

    /// The key under which the pipeline keeps `request`'s image. A request for the full
    /// resolution (``ImageRequest/Options/decodeFullResolution``) is keyed apart from the capped
    /// decode of the same bytes, with or without a size of its own; an HDR decode
    /// (``ImageRequest/Options/decodeToHDR``) apart from the SDR one.
    public init(_ request: ImageRequest) {
        self.init(
            cacheKey: request.cacheKey,
            targetPixelSize: request.targetPixelSize,
            contentMode: request.contentMode,
            processorIdentifiers: request.processorChain.identifiers
        )
        isUncapped = request.options.contains(.decodeFullResolution)
        isHDR = request.decodesToHDR
    }

    /// Whether the image was decoded above the pipeline's cap
    /// (``ImageRequest/Options/decodeFullResolution``).
    var isUncapped = false

    /// Whether the image was decoded to its high dynamic range (``ImageRequest/Options/decodeToHDR``).
    var isHDR = false

    // Written out rather than synthesized: every memory lookup hashes a key and compares it at
    // least once. The synthesized versions go through `Optional`'s generic paths and hash the
    // content mode as its `String` raw value (a second string hash per lookup); these compare
    // and hash the size and mode as plain integers.

    /// Whether two keys name the same memory entry: every field equal.
    public static func == (lhs: ImageCacheKey, rhs: ImageCacheKey) -> Bool {
        lhs.shape == rhs.shape && lhs.cacheKey == rhs.cacheKey && lhs.processorIdentifiers == rhs.processorIdentifiers
    }

    /// Hashes the cache key, the size and mode packed in one integer, and the processors' identifiers.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(cacheKey)
        let shape = self.shape
        hasher.combine(UInt(bitPattern: shape.width) &<< 32 ^ UInt(bitPattern: shape.height) &<< 3 ^ UInt(shape.flags))
        if !processorIdentifiers.isEmpty {
            hasher.combine(processorIdentifiers)
        }
    }

    /// ``targetPixelSize`` and ``contentMode`` as integers, equal exactly when both are: the size
    /// (zero when there is none) and flags (bit 0: a size; bit 1: fit; bit 2: fill; bit 3:
    /// uncapped; bit 4: HDR).
    private var shape: (width: Int, height: Int, flags: UInt8) {
        var mode: UInt8
        switch contentMode {
        case nil: mode = 0
        case .aspectFit?: mode = 2
        case .aspectFill?: mode = 4
        }
        if isUncapped { mode |= 8 }
        if isHDR { mode |= 16 }
        guard let targetSize = targetPixelSize else { return (0, 0, mode) }
        return (targetSize.width, targetSize.height, mode | 1)
    }
}
