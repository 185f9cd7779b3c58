import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Loads images through a memory cache of decoded images, a persistent disk cache of original
/// bytes, and the network, in that order. Identical requests in flight share one download and one
/// decode; downloads run in a bounded, priority-ordered queue.
///
/// ```swift
/// let pipeline = ImagePipeline.shared
///
/// // First frame: a synchronous memory lookup, no await.
/// if let image = pipeline.memoryCachedImage(for: request) { show(image) }
///
/// // Otherwise: disk, then network.
/// let response = try await pipeline.image(for: request)
/// print(response.source) // .memory, .disk, .network or .revalidated
/// ```
public final class ImagePipeline: Sendable {
    /// The pipeline the whole app shares: what `CachedAsyncImage` (through the `imagePipeline`
    /// environment value), `CachedImageViewLoader`, `UIImageView.cachedImage`, ``ImagePrefetcher``
    /// and `ImageLoader` use when given none. A pipeline with the default configuration until
    /// the app replaces it.
    ///
    /// Replace it once, at launch, before the first image loads (in the `App`'s initialiser or
    /// `application(_:didFinishLaunchingWithOptions:)`):
    ///
    /// ```swift
    /// var configuration = ImagePipeline.Configuration()
    /// configuration.memoryCacheCostLimit = 100 * 1024 * 1024
    /// ImagePipeline.shared = ImagePipeline(configuration: configuration)
    /// ```
    ///
    /// Reading and writing it is thread-safe. Each view, loader and prefetcher reads it when it
    /// is created (a SwiftUI view's environment, each time its `body` runs), so one made before
    /// the replacement keeps the pipeline it read: that is why the replacement belongs at launch.
    /// The default pipeline is made on the first read, so an app that replaces it before
    /// reading it never opens the default disk cache.
    public static var shared: ImagePipeline {
        get { sharedPipeline.withLock { $0.pipeline } }
        set { sharedPipeline.withLock { $0.replace(with: newValue) } }
    }

    private static let sharedPipeline = Locked(SharedPipeline())

    /// The configuration the pipeline was created with.
    public let configuration: Configuration

    /// The memory cache of decoded images (`nil` when its cost limit is 0). Trim it on memory
    /// warnings: `pipeline.memoryCache?.trim(toCost: 0)`.
    public let memoryCache: MemoryCache<ImageCacheKey, DecodedImage>?

    /// The disk cache of original bytes (`nil` when disabled or when it could not be opened;
    /// see ``diskCacheOpenError``).
    public let diskCache: DiskCache?

    /// Why the configured disk cache could not be opened (its directory could not be found or
    /// created), if it could not: the pipeline then works from memory and the network. Also
    /// counted in `PipelineStatistics.diskCacheFailures`.
    public let diskCacheOpenError: DiskCache.Error?

    let jobs: ImageJobs
    /// Prefetches that outlive the app, when a background session is configured.
    let backgroundDownloads: BackgroundDownloads?
    private let instrumentation = PipelineInstrumentation()

    /// Creates a pipeline. A disk cache directory that cannot be created disables the disk
    /// cache rather than failing; ``diskCache`` is then `nil` and ``diskCacheOpenError`` says why.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        if configuration.memoryCacheCostLimit > 0 {
            memoryCache = MemoryCache(
                costLimit: configuration.memoryCacheCostLimit,
                countLimit: configuration.memoryCacheCountLimit,
                entryLifetime: configuration.memoryCacheEntryLifetime,
                clock: configuration.clock
            )
            memoryCache?.maximumEntryCostShare = configuration.memoryCacheMaximumEntryShare
        } else {
            memoryCache = nil
        }
        let instrumentation = self.instrumentation
        var openError: DiskCache.Error?
        diskCache = configuration.diskCacheDirectory.flatMap { directory in
            do {
                return try DiskCache.shared(
                    directory: directory,
                    sizeLimit: configuration.diskCacheSizeLimit,
                    clock: configuration.clock,
                    errorHandler: { error in instrumentation.record(.diskCacheFailed(error)) },
                    backgroundGate: configuration.backgroundGate
                )
            } catch {
                openError = error as? DiskCache.Error
                    ?? DiskCache.Error(operation: .open, key: nil, path: directory.path, underlying: error)
                return nil
            }
        }
        diskCacheOpenError = openError
        if let openError { instrumentation.record(.diskCacheFailed(openError)) }
        jobs = ImageJobs(configuration: configuration, memoryCache: memoryCache, diskCache: diskCache, instrumentation: instrumentation)
        // Checked before the initializer, which allocates the object (and its locks) first.
        backgroundDownloads = configuration.backgroundSession == nil
            ? nil : BackgroundDownloads(configuration: configuration, diskCache: diskCache, jobs: jobs)
    }

    // MARK: Loading images

    /// The decoded image for `request` if the memory cache has it, synchronously: use it to render
    /// the first frame without a placeholder. Never touches the disk or the network.
    public func memoryCachedImage(for request: ImageRequest) -> DecodedImage? {
        jobs.memoryCachedImage(for: request)
    }

    /// Loads the image for `request` from the first place that has it: memory, disk, network.
    ///
    /// Cancelling the calling task cancels the request (shared work continues while other
    /// requests still want it).
    ///
    /// - Throws: ``ImagePipeline/Error``, or `CancellationError`.
    public func image(for request: ImageRequest) async throws -> ImageResponse {
        // Runs in the caller's task: a disk hit costs no task or continuation of its own.
        let task = ImageTask(request: request, startDate: configuration.clock.now)
        return try await jobs.complete(task, jobs.begin(task, progress: nil))
    }

    /// Loads the image for `url`; see ``image(for:)-(ImageRequest)``.
    public func image(for url: URL) async throws -> ImageResponse {
        try await image(for: ImageRequest(url: url))
    }

    /// Starts loading `request` and returns a handle to await it, change its priority or cancel it.
    ///
    /// The task joins (or starts) the shared work before this method returns, so handing an
    /// image over from one request to another (a prefetch stopped right after a view asks for
    /// the same image) never restarts the download.
    ///
    /// - Parameters:
    ///   - request: What to load.
    ///   - progress: Called with bytes received and expected while downloading.
    ///   - preview: Called with each preview of a progressive JPEG while it downloads
    ///     (``ImageResponse/isPreview``), never after the final image: with
    ///     ``ImageRequest/Options/showProgressivePreviews`` on any link, without an option once
    ///     the link is measured slow, never with ``ImageRequest/Options/skipProgressivePreviews``.
    ///     Keep it short (hand the image to your own actor or queue).
    public func imageTask(
        with request: ImageRequest,
        progress: (@Sendable (_ received: Int64, _ expected: Int64?) -> Void)? = nil,
        preview: (@Sendable (_ preview: ImageResponse) -> Void)? = nil
    ) -> ImageTask {
        imageTask(with: request, progress: progress, preview: preview, stale: nil)
    }

    /// ``imageTask(with:progress:preview:)`` for a view: `stale` is also called with the stored
    /// copy when the disk's entry must be revalidated first (``ImageResponse/isStale``), decoded
    /// while the server is asked, so the view shows it instead of a placeholder (display only:
    /// the task's own answer keeps RFC 9111's rules); `size` with the image's size as soon as
    /// the body's first bytes give it (``ImageTask/imageSize``), from any thread; a size known
    /// when the task starts is on the task when this returns.
    package func imageTask(
        with request: ImageRequest,
        progress: (@Sendable (_ received: Int64, _ expected: Int64?) -> Void)?,
        preview: (@Sendable (_ preview: ImageResponse) -> Void)?,
        stale: (@Sendable (_ stale: ImageResponse) -> Void)?,
        size: (@Sendable (_ pixelSize: PixelSize) -> Void)? = nil
    ) -> ImageTask {
        let task = ImageTask(request: request, startDate: configuration.clock.now)
        let start = jobs.begin(task, progress: progress, preview: preview, stale: stale, size: size)
        task.start { [jobs] in try await jobs.complete(task, start) }
        return task
    }

    /// Loads the original bytes for `request` through the disk cache and the network, without
    /// decoding or touching the memory cache (prefetching into the disk cache uses this).
    ///
    /// - Throws: ``ImagePipeline/Error``, or `CancellationError`.
    package func data(for request: ImageRequest) async throws -> ImageDataResponse {
        try await dataSubscription(for: request).value()
    }

    /// Joins (or starts) the data job for `request` synchronously; await its `value()`.
    func dataSubscription(for request: ImageRequest) throws -> ImageJobs.DataSubscription {
        try jobs.dataSubscription(for: request)
    }

    /// Downloads waiting for one of the ``Configuration/maximumConcurrentDownloads`` slots.
    var queuedDownloadCount: Int { jobs.queuedDownloadCount }

    /// The download queue's link rule (tests).
    var link: LinkScheduler { jobs.link }

    /// Data jobs under way (tests: a download that stepped aside is one, between its slots).
    var activeDataJobCount: Int { jobs.activeDataJobCount }

    /// How many bytes of `request`'s image are kept from a download that stopped before its end
    /// (``Configuration/resumableDownloadBudget``): what its next download will not ask for again
    /// if the server answers the range. `0` when none are kept. For policies that weigh what
    /// stopping or restarting a download costs.
    package func resumableByteCount(for request: ImageRequest) -> Int {
        let keyed = jobs.resolver.keyed(request)
        guard let url = keyed.url else { return 0 }
        return jobs.fetcher.partialDownloads.partial(forKey: keyed.cacheKey, url: url)?.data.count ?? 0
    }

    /// Lets go of the bytes kept to resume downloads when the system reports memory pressure
    /// (``MemoryPressureResponse/keepsResumableDownloads(at:)``); the Apple layer's
    /// `MemoryPressureTrimmer` calls it next to the memory cache's trim.
    package func trimResumableDownloads(for level: MemoryPressureResponse.Level) {
        guard !MemoryPressureResponse.keepsResumableDownloads(at: level) else { return }
        jobs.fetcher.forgetPartialDownload(forKey: nil)
    }

    // MARK: Cache management

    /// Removes the image for `request`: its bytes from the disk cache and every copy made from
    /// them (decoded in memory at any size, mode or processor chain; processed on disk).
    public func removeCachedImage(for request: ImageRequest) {
        jobs.removeCachedImage(for: request)
    }

    /// Empties the memory cache and the disk cache, forgets the bytes kept to resume
    /// interrupted downloads, and cancels the background prefetches, deleting what they
    /// downloaded and was not adopted yet.
    public func removeAllCachedImages() {
        memoryCache?.removeAll()
        diskCache?.removeAll()
        jobs.fetcher.forgetPartialDownload(forKey: nil)
        backgroundDownloads?.removeAll()
    }

    // MARK: Observability

    /// A snapshot of the pipeline's counters.
    package var statistics: PipelineStatistics {
        instrumentation.statistics
    }

    /// Sets every counter back to zero.
    public func resetStatistics() {
        instrumentation.resetStatistics()
    }

    /// A new stream of everything the pipeline does from now on. Each call makes an independent
    /// stream; it keeps the newest `limit` events when its reader falls behind, and stops
    /// costing anything when its reader goes away.
    public func events(bufferingNewest limit: Int = 1_000) -> AsyncStream<Event> {
        instrumentation.events(bufferingNewest: limit)
    }
}
