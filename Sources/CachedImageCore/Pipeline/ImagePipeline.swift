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
/// if let image = pipeline.cachedImage(for: request) { show(image) }
///
/// // Otherwise: disk, then network.
/// let response = try await pipeline.image(for: request)
/// print(response.source) // .memory, .disk, .network or .revalidated
/// ```
public final class ImagePipeline: Sendable {
    /// A pipeline with the default configuration, shared by the whole app.
    public static let shared = ImagePipeline()

    /// The configuration the pipeline was created with.
    public let configuration: Configuration

    /// The memory cache of decoded images (`nil` when its cost limit is 0). Trim it on memory
    /// warnings: `pipeline.memoryCache?.trim(toCost: 0)`.
    public let memoryCache: MemoryCache<ImageCacheKey, DecodedImage>?

    /// The disk cache of original bytes (`nil` when disabled or its directory could not be created).
    public let diskCache: DiskCache?

    private let imageJobs = TaskCoalescer<ImageTaskKey, DecodedResult>()
    private let dataJobs = TaskCoalescer<DataTaskKey, ImageDataResponse>()
    private let fetcher: DataFetcher
    private let counters = Locked(PipelineStatistics())
    private let broadcaster = EventBroadcaster<Event>()

    /// Creates a pipeline. A disk cache directory that cannot be created disables the disk
    /// cache rather than failing; ``diskCache`` is then `nil`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        if configuration.memoryCacheCostLimit > 0 {
            memoryCache = MemoryCache(
                costLimit: configuration.memoryCacheCostLimit,
                countLimit: configuration.memoryCacheCountLimit,
                entryLifetime: configuration.memoryCacheEntryLifetime,
                clock: configuration.clock
            )
        } else {
            memoryCache = nil
        }
        let broadcaster = self.broadcaster
        diskCache = configuration.diskCacheDirectory.flatMap { directory in
            try? DiskCache(
                directory: directory,
                sizeLimit: configuration.diskCacheSizeLimit,
                clock: configuration.clock,
                errorHandler: { error in broadcaster.send(.diskCacheFailed(error)) }
            )
        }
        fetcher = DataFetcher(configuration: configuration, diskCache: diskCache, statistics: counters, events: broadcaster)
    }

    // MARK: Loading images

    /// The decoded image for `request` if the memory cache has it, synchronously: use it to render
    /// the first frame without a placeholder. Never touches the disk or the network.
    public func cachedImage(for request: ImageRequest) -> DecodedImage? {
        guard let memoryCache, request.options.isDisjoint(with: [.skipMemoryCache, .reloadIgnoringCachedData]) else {
            return nil
        }
        let image = memoryCache.value(forKey: ImageCacheKey(request))
        if image != nil {
            counters.withLock { $0.memoryHits += 1 }
        }
        return image
    }

    /// Loads the image for `request` from the first place that has it: memory, disk, network.
    ///
    /// Cancelling the calling task cancels the request (shared work continues while other
    /// requests still want it).
    ///
    /// - Throws: ``ImagePipeline/Error``, or `CancellationError`.
    public func image(for request: ImageRequest) async throws -> ImageResponse {
        let task = imageTask(with: request)
        return try await withTaskCancellationHandler {
            try await task.response
        } onCancel: {
            task.cancel()
        }
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
    public func imageTask(
        with request: ImageRequest,
        progress: (@Sendable (_ received: Int64, _ expected: Int64?) -> Void)? = nil
    ) -> ImageTask {
        let task = ImageTask(request: request)
        let started = DispatchTime.now().uptimeNanoseconds
        let startDate = configuration.clock.now
        broadcaster.send(.taskStarted(id: task.id, url: request.url))
        let start = begin(task, progress: progress)
        task.start { [self] task in
            try await finish(task, start: start, startedAt: started, startDate: startDate)
        }
        return task
    }

    /// Loads the original bytes for `request` through the disk cache and the network, without
    /// decoding or touching the memory cache (prefetching into the disk cache uses this).
    ///
    /// - Throws: ``ImagePipeline/Error``, or `CancellationError`.
    public func data(for request: ImageRequest) async throws -> ImageDataResponse {
        try await dataSubscription(for: request).value()
    }

    /// Joins (or starts) the data job for `request` synchronously; await its `value()`.
    func dataSubscription(for request: ImageRequest) throws -> TaskCoalescer<DataTaskKey, ImageDataResponse>.Subscription {
        let (request, url) = try resolve(request)
        return subscribeToData(request, url: url, priority: request.priority, progress: nil)
    }

    // MARK: Cache management

    /// Removes the image for `request` from the memory cache (for its target size and the full
    /// size) and its bytes from the disk cache.
    public func removeCachedImage(for request: ImageRequest) {
        memoryCache?.removeValue(forKey: ImageCacheKey(request))
        memoryCache?.removeValue(forKey: ImageCacheKey(cacheKey: request.cacheKey))
        diskCache?.removeEntry(forKey: request.cacheKey)
    }

    /// Empties the memory cache and the disk cache.
    public func removeAllCachedImages() {
        memoryCache?.removeAll()
        diskCache?.removeAll()
    }

    // MARK: Observability

    /// A snapshot of the pipeline's counters.
    public var statistics: PipelineStatistics {
        counters.withLock { $0 }
    }

    /// Sets every counter back to zero.
    public func resetStatistics() {
        counters.withLock { $0 = PipelineStatistics() }
    }

    /// A new stream of everything the pipeline does from now on. Each call makes an independent
    /// stream; it keeps the newest `limit` events when its reader falls behind, and stops
    /// costing anything when its reader goes away.
    public func events(bufferingNewest limit: Int = 1_000) -> AsyncStream<Event> {
        broadcaster.stream(bufferingNewest: limit)
    }

    // MARK: Internals

    /// How an image task begins, decided synchronously.
    private enum Start: Sendable {
        case memory(DecodedImage, ImageRequest)
        case job(TaskCoalescer<ImageTaskKey, DecodedResult>.Subscription, ImageRequest)
        case failure(Error)
    }

    /// Resolves the request, answers from memory, or joins the shared image job.
    private func begin(_ task: ImageTask, progress: (@Sendable (Int64, Int64?) -> Void)?) -> Start {
        let request: ImageRequest
        let url: URL
        do {
            (request, url) = try resolve(task.request)
        } catch let error as Error {
            return .failure(error)
        } catch {
            return .failure(.invalidURL(task.request.url))
        }
        if let image = lookUpMemory(request, countingMiss: true) {
            return .memory(image, request)
        }
        let subscription = imageJobs.subscribe(to: ImageTaskKey(request), priority: task.priority, progress: progress) { [self] context in
            try await decodeImage(request, url: url, context: context)
        }
        if subscription.isCoalesced { counters.withLock { $0.coalescedRequests += 1 } }
        task.bindPriority(to: { subscription.setPriority($0) }, subscribedAt: task.priority)
        return .job(subscription, request)
    }

    /// Waits for the image task's result and reports it.
    private func finish(_ task: ImageTask, start: Start, startedAt started: UInt64, startDate: Date) async throws -> ImageResponse {
        let url = task.request.url
        do {
            let request: ImageRequest
            let result: DecodedResult
            var isCoalesced = false
            switch start {
            case .failure(let error):
                throw error
            case .memory(let image, let resolved):
                request = resolved
                result = DecodedResult(image: image, source: .memory, bytesDownloaded: 0, isCoalesced: false)
            case .job(let subscription, let resolved):
                request = resolved
                result = try await subscription.value()
                isCoalesced = subscription.isCoalesced || result.isCoalesced
            }
            let duration = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            broadcaster.send(.taskCompleted(id: task.id, url: url, source: result.source, duration: duration))
            return ImageResponse(
                image: result.image,
                request: request,
                source: result.source,
                metrics: TaskMetrics(startDate: startDate, duration: duration, isCoalesced: isCoalesced, bytesDownloaded: result.bytesDownloaded)
            )
        } catch let error as Error {
            counters.withLock { $0.failures += 1 }
            broadcaster.send(.taskFailed(id: task.id, url: url, error: error))
            throw error
        } catch {
            // Only cancellation reaches here: every stage maps its failures to `Error`.
            counters.withLock { $0.cancellations += 1 }
            broadcaster.send(.taskCancelled(id: task.id, url: url))
            throw error
        }
    }

    /// The work of an image job: the bytes (shared with any other size of the same image), then
    /// one decode, then the memory cache.
    private func decodeImage(
        _ request: ImageRequest,
        url: URL,
        context: TaskCoalescer<ImageTaskKey, DecodedResult>.JobContext
    ) async throws -> DecodedResult {
        // Another job may have filled the memory cache since this request missed it.
        if let image = lookUpMemory(request, countingMiss: false) {
            return DecodedResult(image: image, source: .memory, bytesDownloaded: 0, isCoalesced: false)
        }
        let subscription = subscribeToData(request, url: url, priority: context.priority) { received, expected in
            context.reportProgress(received, expected)
        }
        context.onPriorityChange { subscription.setPriority($0) }
        let data = try await subscription.value()
        try Task.checkCancellation()

        let image: DecodedImage
        do {
            image = try configuration.decoder.decode(data.data, info: data.info, targetSize: request.targetSize)
        } catch {
            throw Error.decodingFailed(url: url, reason: String(describing: error))
        }
        if let memoryCache, !request.options.contains(.skipMemoryCache) {
            memoryCache.setValue(image, forKey: ImageCacheKey(request), cost: image.cost)
        }
        return DecodedResult(image: image, source: data.source, bytesDownloaded: data.bytesDownloaded, isCoalesced: subscription.isCoalesced)
    }

    private func subscribeToData(
        _ request: ImageRequest,
        url: URL,
        priority: ImageRequest.Priority,
        progress: (@Sendable (Int64, Int64?) -> Void)?
    ) -> TaskCoalescer<DataTaskKey, ImageDataResponse>.Subscription {
        let subscription = dataJobs.subscribe(to: DataTaskKey(request), priority: priority, progress: progress) { [fetcher] context in
            try await fetcher.fetch(request, url: url, context: context)
        }
        if subscription.isCoalesced { counters.withLock { $0.coalescedRequests += 1 } }
        return subscription
    }

    private func lookUpMemory(_ request: ImageRequest, countingMiss: Bool) -> DecodedImage? {
        guard let memoryCache, request.options.isDisjoint(with: [.skipMemoryCache, .reloadIgnoringCachedData]) else {
            return nil
        }
        let image = memoryCache.value(forKey: ImageCacheKey(request))
        if image != nil {
            counters.withLock { $0.memoryHits += 1 }
        } else if countingMiss {
            counters.withLock { $0.memoryMisses += 1 }
        }
        return image
    }

    /// Checks the URL and applies the Low Data Mode policy.
    private func resolve(_ request: ImageRequest) throws -> (ImageRequest, URL) {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), configuration.allowedSchemes.contains(scheme) else {
            throw Error.invalidURL(request.url)
        }
        guard request.constrainedNetworkPolicy != .allow, configuration.isNetworkConstrained() else {
            return (request, url)
        }
        var resolved = request
        switch request.constrainedNetworkPolicy {
        case .allow:
            break
        case .cacheOnly:
            resolved.options.insert(.returnCacheDataDontLoad)
        case .fallback(let fallbackURL):
            // The full-size image still wins when it is already on this device.
            if let diskCache, diskCache.containsEntry(forKey: request.cacheKey) {
                resolved.options.insert(.returnCacheDataDontLoad)
                return (resolved, url)
            }
            resolved.urlRequest.url = fallbackURL
            resolved.cacheKey = fallbackURL.absoluteString
            return (resolved, fallbackURL)
        }
        return (resolved, url)
    }
}

/// Identifies an image job: same bytes, same target size, same options.
struct ImageTaskKey: Hashable, Sendable {
    var cacheKey: String
    var targetSize: PixelSize?
    var options: ImageRequest.Options

    init(_ request: ImageRequest) {
        cacheKey = request.cacheKey
        targetSize = request.targetSize
        options = request.options
    }
}

/// What an image job hands its subscribers.
struct DecodedResult: Sendable {
    var image: DecodedImage
    var source: ImageResponse.Source
    var bytesDownloaded: Int
    var isCoalesced: Bool
}
