import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ImagePipeline {
    /// Everything that shapes a pipeline, as plain values. Defaults suit a typical app; see the
    /// README's defaults table.
    ///
    /// ```swift
    /// var configuration = ImagePipeline.Configuration()
    /// configuration.diskCacheSizeLimit = 500 * 1024 * 1024
    /// configuration.freshnessPolicy = .ignoreHTTPHeaders   // keep images until evicted
    /// let pipeline = ImagePipeline(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// Loads bytes from the network. Default: ``URLSessionDataLoader`` with its own `URLCache`
        /// disabled, so bytes are never cached twice.
        public var dataLoader: any DataLoading

        /// Decodes validated bytes. Default: `ImageIODecoder` on Apple platforms (decoded off the
        /// main thread, downsampled to the request's target size); where ImageIO does not exist, a
        /// decoder that reads only the header (it keeps the bytes and reports the decoded size).
        public var decoder: any ImageDecoding

        /// Total cost (decoded bytes) the memory cache may hold; `0` disables it.
        /// Default: 10% of physical memory, at most 256 MB.
        public var memoryCacheCostLimit: Int

        /// The most decoded images the memory cache may hold. Default: unlimited (cost bounds it).
        public var memoryCacheCountLimit: Int = .max

        /// How long a decoded image may stay in memory; `nil` (the default) means until evicted.
        public var memoryCacheEntryLifetime: TimeInterval?

        /// The share of ``memoryCacheCostLimit`` one decoded image may take, from 0 to 1. A larger
        /// image is delivered to whoever asked but not kept, so one huge photo never evicts most
        /// of the cache. Default: 0.1 (10%, as Nuke does).
        public var memoryCacheMaximumEntryShare: Double = 0.1

        /// The most an image decodes to, whatever its request's size: an image decoded for no
        /// size, or to fit a size (`.aspectFit`), is fitted inside it; one decoded to fill a size
        /// (`.aspectFill`, the default) covers that size with each side taken up to the cap's,
        /// and never holds more pixels than the cap. Never upscaled. `nil` turns the cap off
        /// (full-size decodes, a zoomable detail's). Default: ``defaultMaximumDecodedPixelSize``,
        /// the main screen's longer side in pixels, squared, on Apple platforms; `nil` elsewhere.
        public var maximumDecodedPixelSize: PixelSize? = Configuration.defaultMaximumDecodedPixelSize

        /// The most bytes the decodes running at once may allocate (their decoded bitmaps, from
        /// each image's header size and target). A decode that does not fit waits for others to
        /// finish; one larger than the whole budget runs alone. Only decodes the decoder calls
        /// expensive (``ImageDecoding/isExpensive(_:info:targetPixelSize:)``) are counted; cheap ones
        /// run at once. Default: 64 MB in an app, 16 MB in an app extension.
        public var decodingMemoryBudget: Int = Configuration.processDefaults.decodingMemoryBudget

        /// Which disk entries a view's first frame reads and decodes synchronously on a memory
        /// miss (``ImagePipeline/firstFrameImage(for:)``, used by `ImageLoader`): small fresh
        /// ones, within a time budget per frame. `nil`: first frames read memory only.
        /// Default: `SynchronousDiskRead.default`.
        package var synchronousDiskRead: SynchronousDiskRead? = .default

        /// Where original bytes are kept across launches; `nil` disables the disk cache.
        /// Default: `Caches/CachedImage`.
        public var diskCacheDirectory: URL?

        /// The most bytes the disk cache may hold, pinned images aside. Default: 150 MB.
        public var diskCacheSizeLimit: Int = 150 * 1024 * 1024

        /// The most bytes the pinned images may hold on disk, on top of ``diskCacheSizeLimit``:
        /// images stored with ``ImagePipeline/storeImageData(_:forKey:pinned:)``, pinned with
        /// ``ImagePipeline/pinImage(forKey:)`` or loaded with ``ImageRequest/Options/pinOnDisk``,
        /// which eviction by size never removes. Pinning past it fails with
        /// ``ImagePipeline/Error/pinnedSizeLimitExceeded(url:size:pinnedSize:limit:)`` (a
        /// `.pinOnDisk` download is stored unpinned), and a pinned image's new version past it is
        /// stored unpinned. The call checks the pins this process knows; the pins of the other
        /// processes sharing the directory are checked afterwards, on the disk cache's queue: a
        /// pin they take past the budget is refused after the call returned, the image stays
        /// stored, unpinned, and the disk cache's error handler gets `DiskCache.Error` with
        /// operation `.pin`. Default: 50 MB.
        public var pinnedDiskCacheSizeLimit: Int = 50 * 1024 * 1024

        /// Whether processed and downsampled images are also kept on disk (encoded with
        /// ``encoder``), so a relaunch decodes the small version. Default: ``DiskCachePolicy/original``.
        public var diskCachePolicy: DiskCachePolicy = .original

        /// Encodes processed images for ``diskCachePolicy``. Default: ``defaultEncoder``
        /// (ImageIO on Apple platforms, `nil` elsewhere: then only originals are stored).
        public var encoder: (any ImageEncoding)? = Configuration.defaultEncoder

        /// How long cached bytes are used before asking the server again.
        /// Default: follow the headers; a response that states no lifetime stays fresh for 10% of
        /// the time since it was last modified, at most a day (``HeuristicFreshness/default``).
        public var freshnessPolicy: FreshnessPolicy = .http(heuristic: .default)

        /// The most downloads in flight at once; more wait in a priority-ordered queue. Default:
        /// 12, a screen of a photo grid at once: on a shared mobile downlink a screen's requests
        /// sent together fill it in one round trip, where 6 sent them in two waves (measured on
        /// emulated LTE: BENCHMARKS.md). A download below `.normal` (off screen, prefetch) gives
        /// its slot to a visible request that waits for one. A custom ``dataLoader``'s own
        /// connection limit should be at least this.
        ///
        /// Within it, downloads follow the link: once the pipeline has measured the link from
        /// its own transfers, and the link (not latency, not the server) is what holds them back,
        /// fewer run at once (as many as keep the link busy, at least two), so that images
        /// complete one after another instead of all together at the end (on emulated 3G, the
        /// first photo of a stopped fling in 1.4 s where twelve sharing the link took 4 s).
        /// Over that limit, visible requests before off-screen ones and, among equals, the one
        /// with most still to come steps aside; it comes back at its place in line (top-left
        /// first) and resumes with a `Range` request. Only a transfer whose bytes would be kept
        /// (the server takes ranges and names the version) steps aside once bytes arrived; the
        /// bytes still in flight when it stops are lost.
        public var maximumConcurrentDownloads: Int = 12

        /// The most bytes kept in memory, in all, from downloads that stopped before their end,
        /// so that the next load of the same image asks only for the rest. Default: 16 MB; `0`
        /// keeps nothing.
        ///
        /// A download stopped by its last request's cancellation (a row scrolled away, an app
        /// sent to the background), or by a connection lost in the middle of its body, keeps the
        /// bytes that arrived when its response allows resuming: `Accept-Ranges: bytes`, no
        /// `Content-Encoding`, and a strong validator (an `ETag` that is not weak, or, without
        /// any `ETag`, a `Last-Modified` at least a second older than the response's `Date`).
        /// The next download of that image (a new request for it, or a retry under
        /// ``retryPolicy``) sends `Range: bytes=N-` with `If-Range: <validator>`:
        ///
        /// - `206 Partial Content` whose `Content-Range` continues the kept bytes: the rest is
        ///   appended, and progress counts from the kept bytes on.
        /// - `200 OK` (the server ignores ranges, or the image changed): the kept bytes are
        ///   dropped and the new body is used as any other.
        /// - `416`, or a `206` with another range, an unreadable `Content-Range` or another
        ///   validator: the kept bytes are dropped and the image is asked for again, whole.
        ///
        /// The assembled body is checked like any other (length, format, completeness, pixel
        /// limit) before it is decoded or stored; kept bytes are never decoded, shown or
        /// written to the disk cache. The least recently used are dropped first when the budget
        /// is full; a download larger than the budget is not kept. Revalidations of a stale
        /// cached entry (conditional requests) and ``ImageRequest/Options/reloadIgnoringLocalCacheData``
        /// do not resume. Downloads through ``URLSessionDataLoader`` resume; those through a
        /// custom ``DataLoading`` start again from zero.
        public var resumableDownloadBudget: Int = 16 * 1024 * 1024

        /// Images that would decode to more pixels are refused before decoding (decompression
        /// bombs). The limit applies to the decoded size where the decoder downsamples while it
        /// decodes (``ImageDecoding/downsamplesWhileDecoding(_:)``: ImageIO's thumbnails for
        /// JPEG and HEIF with a request's target size; the source may then be up to 4 times
        /// larger), and to the header's size otherwise. An image whose size the header does not
        /// give is decoded to at most this many pixels, or refused. Default: 64 megapixels
        /// (256 MB decoded).
        public var maximumPixelCount: Int = 64_000_000

        /// The most body bytes a response may have. A larger `Content-Length` is refused before
        /// the body arrives, and a body that grows past it is cancelled at once, failing with
        /// ``ImagePipeline/Error/responseTooLarge(url:limit:)``. A custom ``DataLoading`` is checked
        /// after its load.
        /// Default: 50 MB.
        public var maximumResponseBytes: Int = 50 * 1024 * 1024

        /// URL schemes the pipeline loads; others fail with ``ImagePipeline/Error/invalidURL(_:)``.
        /// `data:` URLs are read without the network, within ``maximumResponseBytes``, validated like
        /// downloads and kept in memory only (the bytes are the URL).
        public var allowedSchemes: Set<String> = ["http", "https", "file", "data"]

        /// Decoders for bytes the core does not recognise (SVG, PDF...), matched by a sniffing
        /// closure or the response's MIME type. Default: empty. See ``ImageDecoderRegistry``.
        public var decoderRegistry = ImageDecoderRegistry()

        /// Whether and how downloads that failed for a transient reason are retried.
        /// Default: ``ImagePipeline/RetryPolicy/disabled``.
        public var retryPolicy: RetryPolicy = .disabled

        /// Whether responses to requests carrying an `Authorization` header may be written to the
        /// disk cache. Default: `false`: such images are private to the user who asked, and the
        /// disk cache outlives sessions and logins, so they are kept in memory only. Headers the
        /// session adds itself (`httpAdditionalHeaders`) are not seen by the pipeline.
        public var storesAuthorizedResponsesOnDisk = false

        /// Request header fields that identify who is asking: their values (hashed, never stored
        /// in clear) become part of the memory, disk and in-flight keys, so an image loaded for
        /// one user is never shown to another. Compared case-insensitively.
        /// Default: `["Authorization"]`.
        public var identityHeaderFields: Set<String> = ["Authorization"]

        /// Called before every network request, with the request about to be sent; returns the
        /// request to send instead: add or refresh credentials (a bearer token), sign the URL,
        /// set headers the server needs. Runs each time the pipeline goes to the network (a
        /// download, a revalidation, each retry), once the request has a download slot, and never
        /// for memory or disk hits. Throwing fails the load with
        /// ``ImagePipeline/Error/requestModifierFailed(url:underlying:)`` (nothing is sent,
        /// stored or remembered as a failure); throwing `CancellationError` cancels it.
        ///
        /// The cache key is computed before the network, from the request as given (its URL,
        /// its own headers and ``ImageRequestDefaults/headerFields``), so what this modifier adds
        /// does not change it: a refreshed token keeps hitting the images loaded with the old
        /// one, and its responses are cached, on disk too, as Kingfisher and Nuke cache the
        /// responses to a modified request. When images differ per user, put the user in the
        /// request (a header listed in ``identityHeaderFields``) or clear the caches at logout.
        /// Default: `nil`. See <doc:Authentication>.
        ///
        /// ```swift
        /// configuration.requestModifier = { request in
        ///     var request = request
        ///     request.setValue("Bearer \(try await tokens.current())", forHTTPHeaderField: "Authorization")
        ///     return request
        /// }
        /// ```
        public var requestModifier: (@Sendable (URLRequest) async throws -> URLRequest)?

        /// How long a failed image is answered with the same error before the server is asked
        /// again (negative caching), so a broken image does not refetch on every appearance.
        /// Only answers the server gave count: an error status (honouring its `Retry-After` and
        /// `Cache-Control`), or a body that is not a usable image (remembered as long as a
        /// client error). Requests with ``ImageRequest/Options/skipFailureCache`` (what
        /// `ImageLoader.retry()` sends) or a reload option always ask again.
        /// Default: `FailureCachePolicy.default`; `FailureCachePolicy.disabled` turns it off.
        package var failureCachePolicy: FailureCachePolicy = .default

        /// Whether the network is constrained right now (Low Data Mode), consulted for requests
        /// with a ``ImageRequest/ConstrainedNetworkPolicy``. Default: ``NetworkMonitor/shared``,
        /// which follows the system's `NWPathMonitor` on Apple platforms (never constrained on
        /// Linux). ``useNetworkMonitor(_:treatingExpensiveAsConstrained:)`` also counts cellular.
        public var isNetworkConstrained: @Sendable () -> Bool = { NetworkMonitor.shared.isConstrained }

        /// When requests that get previews (``ImageRequest/Options/showProgressivePreviews``, or
        /// no option on a link measured slow) get a preview of a progressive JPEG still
        /// downloading: at most 3 per image, 0.2 s apart at least, by default (`clock` keeps the time).
        package var progressivePreviewPolicy = ProgressivePreviewPolicy()

        /// The clock used for HTTP freshness, memory lifetimes and disk access order.
        package var clock: any CacheClock = SystemClock()

        /// The monotonic clock the download queue measures the link on (``LinkGauge``).
        package var linkClock: any UptimeClock = SystemUptimeClock()

        /// Whether the download queue runs as many downloads at once as the link needs, measured
        /// from the transfers (``LinkScheduler``); `false`: always ``maximumConcurrentDownloads``.
        package var adaptsDownloadsToLink = true

        /// Stage timestamps for the benchmark's disk-hit breakdown; `nil` (no cost) otherwise.
        package var stageTrace: StageTrace?

        /// The gate a new disk cache's locked operations ask (tests give a pipeline its own).
        package var backgroundGate: BackgroundExecutionGate = .shared

        /// The background session prefetches may run on while the app is away
        /// (``ImagePrefetcher/startPrefetching(with:inBackground:)``): on Apple platforms set by
        /// `backgroundSessionIdentifier` (the `CachedImage` module); tests inject a fake. `nil`:
        /// none, background prefetches run as foreground ones.
        package var backgroundSession: BackgroundSessionSetup?

        /// A configuration with the default loader, decoder and caches.
        public init() {
            self.dataLoader = URLSessionDataLoader()
            #if canImport(ImageIO)
            self.decoder = ImageIODecoder()
            #else
            self.decoder = HeaderImageDecoder()
            #endif
            self.memoryCacheCostLimit = Configuration.defaultMemoryCacheCostLimit
            self.diskCacheDirectory = Configuration.defaultDiskCacheDirectory
        }

        /// The default ``maximumDecodedPixelSize``: a square of the main screen's longer
        /// side in pixels (so a full-screen image is sharp in either orientation) on iOS, tvOS and
        /// macOS; 4096x4096 there when the screen is not known yet (a configuration made off the
        /// main thread before any was made on it). Where there is no main screen to read, a
        /// constant (`MainScreen.screenlessCap`): 4096x4096 on visionOS (a window can be
        /// enlarged to most of the field of view), 1024x1024 on watchOS (twice the largest
        /// watch screen's 502 pixels, room to zoom); `nil` (no cap) elsewhere (Linux). In an app
        /// extension (a widget, a share extension), a square of the screen's shorter side.
        public static var defaultMaximumDecodedPixelSize: PixelSize? {
            // The physical memory is not read here: every `Configuration()` (a relaunch's first
            // image) would pay its system call.
            decodeCap(for: .current, screen: MainScreen.pixelSize, hasScreen: MainScreen.platformHasScreen, screenlessCap: MainScreen.screenlessCap)
        }

        /// The rule behind ``defaultMaximumDecodedPixelSize``.
        package static func decodeCap(screen: PixelSize?, hasScreen: Bool, screenlessCap: PixelSize? = nil) -> PixelSize? {
            guard hasScreen else { return screenlessCap }
            guard let screen, screen.width > 0, screen.height > 0 else { return PixelSize(width: 4096, height: 4096) }
            return screen.squareOfLongerSide
        }

        /// 10% of physical memory, at most 256 MB, in an app; 16 MB in an app extension (a
        /// widget or a share extension lives within tens of megabytes).
        public static var defaultMemoryCacheCostLimit: Int { processDefaults.memoryCacheCostLimit }

        /// This process's defaults, computed once: reading the physical memory is a system call.
        private static let processDefaults = defaults(
            for: .current, physicalMemory: ProcessInfo.processInfo.physicalMemory, screen: nil, hasScreen: false
        )

        /// The memory defaults of a process of `kind` (`screen`: the main screen in pixels, for
        /// the decode cap): an app gets 10% of `physicalMemory` up to 256 MB for the memory cache,
        /// a 64 MB decoding budget and the screen's longer side squared as the cap
        /// (``decodeCap(screen:hasScreen:screenlessCap:)``); an app extension 16 MB, 16 MB and a
        /// square of the screen's shorter side (a widget or a share sheet is never larger than
        /// the screen's width; a full-screen photo there is 5.5 MB, not 26 MB).
        package static func defaults(
            for kind: ProcessKind,
            physicalMemory: UInt64,
            screen: PixelSize?,
            hasScreen: Bool,
            screenlessCap: PixelSize? = nil
        ) -> (memoryCacheCostLimit: Int, decodingMemoryBudget: Int, maximumDecodedPixelSize: PixelSize?) {
            let cap = decodeCap(for: kind, screen: screen, hasScreen: hasScreen, screenlessCap: screenlessCap)
            switch kind {
            case .app: return (Int(min(physicalMemory / 10, 256 * 1024 * 1024)), 64 * 1024 * 1024, cap)
            case .appExtension: return (Int(min(physicalMemory / 10, 16 * 1024 * 1024)), 16 * 1024 * 1024, cap)
            }
        }

        /// The decode cap of a process of `kind` (see ``defaults(for:physicalMemory:screen:hasScreen:screenlessCap:)``).
        package static func decodeCap(for kind: ProcessKind, screen: PixelSize?, hasScreen: Bool, screenlessCap: PixelSize?) -> PixelSize? {
            let appCap = decodeCap(screen: screen, hasScreen: hasScreen, screenlessCap: screenlessCap)
            guard kind == .appExtension else { return appCap }
            let side = screen.map { min($0.width, $0.height) }.flatMap { $0 > 0 ? $0 : nil }
            return side.map { PixelSize(width: $0, height: $0) } ?? appCap.map { PixelSize(width: min($0.width, 2048), height: min($0.height, 2048)) }
        }

        /// `<Caches>/CachedImage` (on Linux, `~/.cache/CachedImage`).
        public static var defaultDiskCacheDirectory: URL? { cachesSubdirectory }

        /// Looked up once: asking `FileManager` for the caches directory costs about 50 µs, which
        /// every `Configuration()` (and so every relaunch's first image) would pay again.
        private static let cachesSubdirectory: URL? = FileManager.default
            .urls(for: .cachesDirectory, in: .userDomainMask).first?
            .appendingPathComponent("CachedImage", isDirectory: true)
    }

    /// How long cached bytes stay fresh.
    public enum FreshnessPolicy: Sendable, Hashable {
        /// Follow the server's HTTP caching headers (`Cache-Control`, `Expires`, `Age`, `Date`,
        /// `Vary`, `stale-while-revalidate`, `stale-if-error`), revalidating stale entries with
        /// `If-None-Match` / `If-Modified-Since`. When a response states no lifetime,
        /// `heuristic` decides (RFC 9111 4.2.2).
        case http(heuristic: HeuristicFreshness)
        /// Ignore freshness headers: cached bytes are used until the disk cache evicts them, and
        /// the network is only asked on a miss (fewest requests). `no-store` is still honoured.
        case ignoreHTTPHeaders
    }
}
