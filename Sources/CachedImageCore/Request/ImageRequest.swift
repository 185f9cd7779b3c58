import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What to load and how: the URL (or a full `URLRequest`), the cache key, the priority, the size
/// the image is shown at, and options that change how caches are used.
///
/// ```swift
/// let request = ImageRequest(
///     url: URL(string: "https://example.com/photo.jpg"),
///     priority: .high,
///     targetSize: CGSize(width: 200, height: 200)  // points: 600x600 pixels on a 3x screen
/// )
/// let response = try await ImagePipeline.shared.image(for: request)
/// ```
public struct ImageRequest: Sendable, Hashable, CustomStringConvertible {
    /// The request sent to the server (when one is sent at all).
    public var urlRequest: URLRequest {
        didSet { urlRequestIsPlain.value = false }
    }

    /// `true` while ``urlRequest`` is the one ``init(url:cacheKey:priority:targetSize:contentMode:options:constrainedNetworkPolicy:processors:)``
    /// made (a `GET`, no header fields, the default cache policy): the caches key such a request
    /// as it is, without reading the `URLRequest` (the memory hit path). Any change to
    /// ``urlRequest`` clears it. Not part of the request's equality.
    var urlRequestIsPlain = KeyingHint()

    /// Identifies the image's bytes in the memory and disk caches. Defaults to the URL's
    /// absolute string; override it to share one cache entry between URLs that differ only in,
    /// say, a signed query string.
    ///
    /// Only `GET` requests are cached and shared by default: a request with another method is
    /// cached only when it has an explicit key. The pipeline adds a hash of the request's
    /// identity headers (``ImagePipeline/Configuration/identityHeaderFields``, `Authorization`
    /// by default) to the key, so two users never share an image.
    public var cacheKey: String {
        didSet { hasExplicitCacheKey = true }
    }

    /// Whether ``cacheKey`` was set by the caller rather than derived from the URL.
    private(set) var hasExplicitCacheKey: Bool

    /// The request's priority. Visible images should use `.normal` or higher, prefetches `.low`.
    public var priority: Priority

    /// The size the image is shown at, in pixels: what decoders downsample to (as
    /// ``contentMode`` says), so a 4000x3000 photo shown in a 300x300 point view (900x900 pixels
    /// at 3x) costs about 4 MB, not 48 MB. Never upscaled. Part of the decoded image's cache key,
    /// not of the original bytes'. `nil`: the pipeline's cap applies
    /// (``ImagePipeline/Configuration/maximumDecodedPixelSize``, the screen's size by default).
    ///
    /// Apps usually give the size in points instead (``targetSize``), as SwiftUI and UIKit lay
    /// views out; this is the pixel form, for a size that is in pixels whatever the screen (a
    /// thumbnail of a fixed pixel size). Setting it clears ``targetSize``.
    public var targetPixelSize: PixelSize? {
        didSet { pointSize = nil }
    }

    /// ``targetSize``, kept so that a view can apply its own display's scale.
    var pointSize: PointSize?

    /// How the image covers its target size (``targetSize``, ``targetPixelSize``): `.aspectFill` (the default, as for
    /// `ImageProcessors.Resize`: a cell that crops, such as `scaledToFill()` or
    /// `.scaleAspectFill`) decodes at least the target in both dimensions; `.aspectFit` (a view
    /// that letterboxes) decodes inside it. Ignored without a target size; part of the decoded
    /// image's cache key otherwise.
    public var contentMode: ImageContentMode

    /// Options that change how caches and the network are used.
    public var options: Options

    /// What to do when the system reports a constrained network (Low Data Mode).
    public var constrainedNetworkPolicy: ConstrainedNetworkPolicy

    /// Processors run in order on the decoded image, off the main actor (resize, crop, round
    /// corners, blur...). Their identifiers are part of the decoded image's cache key, not of
    /// the original bytes': requests with different processors share a download, never a result.
    public var processors: [any ImageProcessing] {
        get { processorChain.processors }
        set { processorChain = ProcessorChain(newValue) }
    }

    /// ``processors``, compared and hashed by identifiers.
    var processorChain = ProcessorChain()

    /// A smaller version of the same image (a thumbnail URL your API gives) that a view shows
    /// until this one arrives: at once when a view showed it already (the grid's thumbnail,
    /// from memory, at whatever size it was shown), else as soon as it loads. The full image
    /// replaces it without a placeholder in between; when the full image fails, the smaller one
    /// stays, with the error beside it (`CachedImagePhase.error`). It is shown as a preview
    /// (``ImageResponse/isPreview``), decoded like this request (its size, content mode and
    /// processors) and sent with its header fields when both URLs share an origin; the pipeline's own loads (``ImagePipeline/image(for:)-(ImageRequest)``)
    /// ignore it.
    ///
    /// ```swift
    /// var request = ImageRequest(url: photo.fullURL)
    /// request.lowResolutionURL = photo.thumbnailURL  // the grid's image, often in memory already
    /// CachedAsyncImage(request: request) { phase in ... }
    /// ```
    public var lowResolutionURL: URL?

    /// Whether this request's processed or downsampled result is also kept on disk; `nil` (the
    /// default) follows ``ImagePipeline/Configuration/diskCachePolicy``. Identical requests in
    /// flight share one job: the one that started it decides what is stored.
    public var diskCachePolicy: ImagePipeline.DiskCachePolicy?

    /// Whether this request reads an image the app stored (``init(key:priority:targetSize:contentMode:options:processors:)``):
    /// the caches only. A `cachedimage-key:` URL from anywhere else (a server's data) is not one.
    var readsStoredImage = false

    /// The request's own cache directives (`Cache-Control`, `Pragma`, `cachePolicy`), read
    /// from ``urlRequest`` by the pipeline when it resolves the request; `.none` until then.
    var cacheDirectives = RequestCacheDirectives.none

    /// Creates a request for a URL shown at `targetSize` points (``targetSize``; the display's
    /// scale turns it into pixels for you). A `nil` URL gives a request that fails with
    /// ``ImagePipeline/Error/invalidURL(_:)``, mirroring `AsyncImage(url: nil)`.
    ///
    /// ```swift
    /// CachedAsyncImage(request: ImageRequest(url: url, targetSize: CGSize(width: 100, height: 100)))
    /// ```
    public init(
        url: URL?,
        cacheKey: String? = nil,
        priority: Priority = .normal,
        targetSize: CGSize? = nil,
        contentMode: ImageContentMode = .aspectFill,
        options: Options = [],
        constrainedNetworkPolicy: ConstrainedNetworkPolicy = .allow,
        processors: [any ImageProcessing] = []
    ) {
        self.init(
            urlRequest: URLRequest(url: url ?? ImageRequest.missingURL), cacheKey: cacheKey, priority: priority,
            targetSize: targetSize, contentMode: contentMode, options: options,
            constrainedNetworkPolicy: constrainedNetworkPolicy, processors: processors
        )
        // A plain `GET`: the caches key it without reading the `URLRequest`.
        urlRequestIsPlain.value = true
    }

    /// Creates a request for a URL decoded at `targetPixelSize` pixels whatever the screen
    /// (``targetPixelSize``): the pixel form of ``init(url:cacheKey:priority:targetSize:contentMode:options:constrainedNetworkPolicy:processors:)``.
    public init(
        url: URL?,
        cacheKey: String? = nil,
        priority: Priority = .normal,
        targetPixelSize: PixelSize?,
        contentMode: ImageContentMode = .aspectFill,
        options: Options = [],
        constrainedNetworkPolicy: ConstrainedNetworkPolicy = .allow,
        processors: [any ImageProcessing] = []
    ) {
        self.init(
            url: url, cacheKey: cacheKey, priority: priority, contentMode: contentMode, options: options,
            constrainedNetworkPolicy: constrainedNetworkPolicy, processors: processors
        )
        self.targetPixelSize = targetPixelSize
    }

    /// Creates a request from a `URLRequest`, for custom headers, timeouts or methods, shown at
    /// `targetSize` points (``targetSize``).
    public init(
        urlRequest: URLRequest,
        cacheKey: String? = nil,
        priority: Priority = .normal,
        targetSize: CGSize? = nil,
        contentMode: ImageContentMode = .aspectFill,
        options: Options = [],
        constrainedNetworkPolicy: ConstrainedNetworkPolicy = .allow,
        processors: [any ImageProcessing] = []
    ) {
        self.urlRequest = urlRequest
        self.cacheKey = cacheKey ?? Self.derivedCacheKey(urlRequest.url)
        self.hasExplicitCacheKey = cacheKey != nil
        self.priority = priority
        self.contentMode = contentMode
        self.options = options
        self.constrainedNetworkPolicy = constrainedNetworkPolicy
        self.processorChain = ProcessorChain(processors)
        if let targetSize { self.targetSize = targetSize }
    }

    /// The request's URL (`nil` for a request created with a `nil` URL).
    public var url: URL? {
        guard let url = urlRequest.url, url != ImageRequest.missingURL else { return nil }
        return url
    }

    public var description: String {
        let processors = processorChain.isEmpty ? "" : ", processors: \(processorChain.identifiers)"
        return "ImageRequest(\(url?.absoluteString ?? "nil"), priority: \(priority)"
            + (targetPixelSize.map { ", targetPixelSize: \($0), \(contentMode.rawValue)" } ?? "") + processors + ")"
    }

    /// The cache key of a URL: its absolute string. One that looks like an app's own key
    /// (``ImagePipeline/customCacheKey(_:)``, a `cachedimage-key:` URL from a server's data) is
    /// moved out of that namespace, so it never reads what the app stored.
    static func derivedCacheKey(_ url: URL?) -> String {
        guard let string = url?.absoluteString else { return "" }
        return string.hasPrefix(ImagePipeline.customKeyPrefix) ? "url:" + string : string
    }

    /// Placeholder for `init(url: nil)`, so the request stays a plain value.
    static let missingURL = URL(string: "cachedimage-missing-url:")!
}

extension ImageRequest {
    /// How urgently a request is served. The pipeline starts queued downloads highest first.
    public enum Priority: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
        /// Only once nothing else waits (prefetching far ahead).
        case veryLow = 0
        /// Below on-screen requests: prefetching and off-screen views.
        case low
        /// The default.
        case normal
        /// Ahead of the default.
        case high
        /// Ahead of every other priority.
        case veryHigh

        public static func < (lhs: Priority, rhs: Priority) -> Bool {
            lhs.rawValue < rhs.rawValue
        }

        public var description: String {
            switch self {
            case .veryLow: "veryLow"
            case .low: "low"
            case .normal: "normal"
            case .high: "high"
            case .veryHigh: "veryHigh"
            }
        }
    }

    /// Options that change how caches and the network are used. Each is what the load does: the
    /// four cache policies are `URLRequest.CachePolicy`'s own names (`reload…`, `return…`),
    /// the others `skip…` a cache or `show…` something more.
    ///
    /// ```swift
    /// ImageRequest(url: url, options: [.reloadRevalidatingCacheData, .skipFailureCache]) // pull to refresh
    /// ```
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int

        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// Skip the memory and disk caches and download again; the result still refreshes them.
        /// Like `URLRequest.CachePolicy.reloadIgnoringLocalCacheData`.
        public static let reloadIgnoringLocalCacheData = Options(rawValue: 1 << 0)

        /// Offline: serve cached bytes even when stale and never touch the network; a miss, or a
        /// stale entry the server marked `must-revalidate` or `no-cache`, fails with
        /// ``ImagePipeline/Error/notCached(_:)``. Like `URLRequest.CachePolicy.returnCacheDataDontLoad`.
        public static let returnCacheDataDontLoad = Options(rawValue: 1 << 1)

        /// Serve a cached image whatever its age, and load only when nothing is cached: like
        /// `URLRequest.CachePolicy.returnCacheDataElseLoad` (for a screen that must not wait, such as
        /// an offline-first feed). The memory cache is not read (a decoded image does not carry
        /// its age; the disk entry does).
        public static let returnCacheDataElseLoad = Options(rawValue: 1 << 7)

        /// Neither read nor write the memory cache of decoded images.
        public static let skipMemoryCache = Options(rawValue: 1 << 2)

        /// Neither read nor write the disk cache of original bytes.
        public static let skipDiskCache = Options(rawValue: 1 << 3)

        /// Revalidate a cached entry with the server (a conditional request) even while it is
        /// fresh, unless the server marked it `immutable`. Like
        /// `URLRequest.CachePolicy.reloadRevalidatingCacheData`: a pull-to-refresh. The memory
        /// cache is not read (the result still refreshes it).
        public static let reloadRevalidatingCacheData = Options(rawValue: 1 << 4)

        /// Ask the network even when this image failed moments ago: an explicit retry (the
        /// pipeline otherwise answers a recently failed URL with the same error for a short
        /// while: its failure cache).
        public static let skipFailureCache = Options(rawValue: 1 << 5)

        /// Show a progressive JPEG scan by scan while it downloads, on any link: the task's
        /// observers get previews (``ImageResponse/isPreview``) decoded at the request's target
        /// size with its processors, when `ImagePipeline.Configuration.progressivePreviewPolicy`
        /// says, then the final image. Baseline JPEGs and other formats get none; previews are
        /// never cached.
        ///
        /// Without this option or ``skipProgressivePreviews``, previews follow the link: on,
        /// for observers that take them (the views do), once the pipeline has measured a slow
        /// link (an image takes more than a second to arrive at the link's rate shared by the
        /// downloads running), off on a fast one, where they would cost decodes for nothing.
        /// Set it for a screen with ``ImageRequestDefaults/options``. Requests with and without
        /// it share the download, not the decode; a request that joins a download already under
        /// way, started without previews, gets none from it (the scans before it joined are gone).
        public static let showProgressivePreviews = Options(rawValue: 1 << 6)

        /// Never decode progressive previews of this image, whatever the link: the final image
        /// only. Wins over ``showProgressivePreviews`` when both are set (a subtree's defaults
        /// and a view's own options are merged).
        public static let skipProgressivePreviews = Options(rawValue: 1 << 9)

        /// Decode at the image's own size: above the pipeline's cap
        /// (``ImagePipeline/Configuration/maximumDecodedPixelSize``, the screen's size by default)
        /// and a subtree's (``ImageRequestDefaults/maximumDecodedPixelSize``), and whatever size
        /// the view is laid out at: a zoomable detail, a photo to edit. A target size the request
        /// gives itself still applies. The pixel limit
        /// (``ImagePipeline/Configuration/maximumPixelCount``) still refuses what no device could
        /// hold, and the memory cost is the image's: a 12-megapixel photo holds 48 MB, more than
        /// one memory-cache entry may take by default
        /// (``ImagePipeline/Configuration/memoryCacheMaximumEntryShare``), so it is decoded again
        /// (from disk) when it is shown again.
        ///
        /// ```swift
        /// CachedAsyncImage(request: ImageRequest(url: url, options: [.decodeFullResolution])) { image in
        ///     image.resizable().scaledToFit()
        /// } placeholder: {
        ///     ProgressView()
        /// }
        /// ```
        public static let decodeFullResolution = Options(rawValue: 1 << 8)

        /// Decode an HDR photo (an iPhone photo's gain map, an ISO 21496-1 gain map, a PQ or HLG
        /// image) to its high dynamic range, where the system can (iOS 17, macOS 14, tvOS 17,
        /// watchOS 10, visionOS 1 and later); elsewhere, and for SDR images, the decode is the
        /// usual one. ImageIO's `kCGImageSourceDecodeRequest` with `kCGImageSourceDecodeToHDR`,
        /// SDWebImage's `decodeToHDR`.
        ///
        /// An HDR bitmap holds 8 bytes per pixel (16-bit float RGBA) instead of 4: twice the
        /// memory, which the memory cache counts (its cost is the bitmap's bytes) and the
        /// decoding budget admits in advance, on an SDR display too. So it is off by default, for
        /// the screens that show HDR (a photo detail), not a feed of thumbnails. Where the system
        /// cannot decode HDR, the request is an SDR one (its memory entry and cost). The HDR decode is kept apart from the
        /// SDR decode of the same bytes in memory (one download, one disk entry for both) and
        /// never kept as a processed copy on disk (encoders write SDR). Showing the extra range
        /// is the view's part: SwiftUI's `allowedDynamicRange(.high)` or
        /// `UIImageView.preferredImageDynamicRange = .high` (iOS 17). Processors draw into an
        /// 8-bit canvas, so an HDR image with processors (rounded corners, a blur, a crop) comes
        /// out in standard range at best; ask for HDR without them (not verified on a device).
        ///
        /// ```swift
        /// CachedAsyncImage(request: ImageRequest(url: url, options: [.decodeToHDR])) { image in
        ///     image.resizable().scaledToFit()
        /// } placeholder: {
        ///     ProgressView()
        /// }
        /// ```
        public static let decodeToHDR = Options(rawValue: 1 << 10)

        /// Pin the downloaded bytes on disk: eviction by size never removes them (offline
        /// avatars, onboarding art), within
        /// ``ImagePipeline/Configuration/pinnedDiskCacheSizeLimit``. Pinned when the response is
        /// stored; a response the disk cache may not keep (`no-store`, ``skipDiskCache``) is not
        /// pinned, and one that would pass the pinned budget is stored unpinned (no pinned image
        /// is ever unpinned or removed to make room; ``ImagePipeline/pinImage(for:)`` says why
        /// with a typed error). Bytes already on disk are pinned with ``ImagePipeline/pinImage(for:)``.
        /// A pinned image is still revalidated when stale (a new version stays pinned within the
        /// pinned budget and is stored unpinned past it); otherwise only
        /// ``ImagePipeline/unpinImage(for:)`` and removals end a pin. Storing never waits (not
        /// even for the disk cache's index at launch); requests with and without this option do
        /// not share a download.
        ///
        /// ```swift
        /// ImageRequest(url: avatarURL, options: [.pinOnDisk])
        /// ```
        public static let pinOnDisk = Options(rawValue: 1 << 11)
    }

    /// What to load when the system says the network is constrained (Low Data Mode).
    public enum ConstrainedNetworkPolicy: Sendable, Hashable {
        /// Load as usual.
        case allow
        /// Load this lower-resolution URL instead (it is cached under its own key).
        case fallback(URL)
        /// Serve only what is cached; a miss fails with ``ImagePipeline/Error/notCached(_:)``.
        case cacheOnly
    }
}

extension ImageRequest {
    /// A fact about a request that speeds up keying it and never makes two requests differ:
    /// equal to every other hint, hashed as nothing.
    struct KeyingHint: Hashable, Sendable {
        var value = false

        static func == (_: KeyingHint, _: KeyingHint) -> Bool { true }
        func hash(into hasher: inout Hasher) {}
    }
}
