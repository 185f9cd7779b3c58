import Foundation

/// The image stage of the pipeline: memory cache, then one shared job per
/// (cache key, target size, options) that gets the bytes and decodes them once.
///
/// A request that creates a job runs it itself when the bytes are on disk: the disk lookup,
/// the decode and the memory store happen in the caller's task, with no task or continuation
/// of their own, and requests that join meanwhile get the same result. Only a request that
/// needs the network hands its job to a task (shared with every target size of the same bytes
/// through a data job), so a disk hit never waits behind downloads.
final class ImageJobs: Sendable {
    typealias Subscription = TaskCoalescer<ImageTaskKey, DecodedResult>.Subscription
    typealias DataSubscription = TaskCoalescer<DataTaskKey, ImageDataResponse>.Subscription

    /// How an image task begins, decided synchronously by ``begin(_:progress:)``.
    enum Start: Sendable {
        case memory(DecodedImage, ImageRequest)
        /// The image job; when this task created it and the bytes were already being
        /// downloaded, `heldDownload` is that download, joined at once so that it outlives
        /// whoever started it (a prefetch stopped right after), until the job knows whether it
        /// needs it.
        case job(Subscription, ImageRequest, URL, heldDownload: DataSubscription?)
        case failure(ImagePipeline.Error)
    }

    private let memoryCache: MemoryCache<ImageCacheKey, DecodedImage>?
    private let decoder: any ImageDecoding
    private let decoderRegistry: ImageDecoderRegistry
    private let pixelLimit: PixelLimit
    private let resolver: RequestResolver
    private let fetcher: DataFetcher
    private let instrumentation: PipelineInstrumentation
    private let trace: StageTrace?
    private let derivedImages: DerivedImageStore?
    private let imageJobs = TaskCoalescer<ImageTaskKey, DecodedResult>()
    private let dataJobs = TaskCoalescer<DataTaskKey, ImageDataResponse>()

    init(
        configuration: ImagePipeline.Configuration,
        memoryCache: MemoryCache<ImageCacheKey, DecodedImage>?,
        diskCache: DiskCache?,
        instrumentation: PipelineInstrumentation
    ) {
        self.memoryCache = memoryCache
        self.decoder = configuration.decoder
        self.decoderRegistry = configuration.decoderRegistry
        self.pixelLimit = PixelLimit(maxPixelCount: configuration.maxPixelCount)
        self.resolver = RequestResolver(
            allowedSchemes: configuration.allowedSchemes,
            isNetworkConstrained: configuration.isNetworkConstrained,
            diskCache: diskCache,
            identityHeaderFields: Set(configuration.identityHeaderFields.map { $0.lowercased() })
        )
        self.fetcher = DataFetcher(configuration: configuration, diskCache: diskCache, instrumentation: instrumentation)
        self.instrumentation = instrumentation
        self.trace = configuration.stageTrace
        self.derivedImages = DerivedImageStore(configuration: configuration, diskCache: diskCache)
    }

    /// Downloads waiting for a slot in the download queue.
    var queuedDownloadCount: Int { fetcher.queuedDownloadCount }

    // MARK: Image tasks

    /// Resolves the task's request, answers from memory, or joins (or creates) its image job,
    /// synchronously, so shared work is joined before the caller goes on.
    func begin(_ task: ImageTask, progress: (@Sendable (Int64, Int64?) -> Void)?) -> Start {
        trace?.mark(.started)
        instrumentation.record(.taskStarted(id: task.id, url: task.request.url))
        let request: ImageRequest
        let url: URL
        do {
            (request, url) = try resolver.resolve(task.request)
        } catch {
            return .failure(error as? ImagePipeline.Error ?? .invalidURL(task.request.url))
        }
        if let image = memoryImage(for: request, counting: .hitsAndMisses) {
            return .memory(image, request)
        }
        trace?.mark(.memoryMissed)
        let priority = task.priority
        let subscription = imageJobs.subscribe(to: ImageTaskKey(request), priority: priority, progress: progress)
        if subscription.isCoalesced { instrumentation.record(.coalesced) }
        let heldDownload = subscription.isOwner ? dataJobs.join(DataTaskKey(request), priority: priority) : nil
        task.bind(to: subscription, subscribedAt: priority)
        trace?.mark(.jobJoined)
        return .job(subscription, request, url, heldDownload: heldDownload)
    }

    /// Produces the task's response (running its job when the task created it) and reports how
    /// the task ended.
    func complete(_ task: ImageTask, _ start: Start) async throws -> ImageResponse {
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
            case .job(let subscription, let resolved, let resolvedURL, let heldDownload):
                request = resolved
                result = subscription.isOwner
                    ? try await run(subscription, request: resolved, url: resolvedURL, heldDownload: heldDownload)
                    : try await subscription.value()
                isCoalesced = subscription.isCoalesced || result.isCoalesced
            }
            let duration = task.elapsedTime
            trace?.mark(.completed)
            instrumentation.record(.taskCompleted(id: task.id, url: url, source: result.source, duration: duration))
            return ImageResponse(
                image: result.image,
                request: request,
                source: result.source,
                metrics: TaskMetrics(startDate: task.startDate, duration: duration, isCoalesced: isCoalesced, bytesDownloaded: result.bytesDownloaded)
            )
        } catch let error as ImagePipeline.Error {
            instrumentation.record(.taskFailed(id: task.id, url: url, error: error))
            throw error
        } catch {
            // Only cancellation reaches here: every stage maps its failures to `ImagePipeline.Error`.
            instrumentation.record(.taskCancelled(id: task.id, url: url))
            throw error
        }
    }

    /// Runs a job this task created: inline when memory or disk can answer, else in a task.
    private func run(
        _ subscription: Subscription,
        request: ImageRequest,
        url: URL,
        heldDownload: DataSubscription?
    ) async throws -> DecodedResult {
        let answer: LocalAnswer
        do {
            answer = try await answerWithoutNetwork(request, url: url)
        } catch {
            heldDownload?.cancel()
            // Whatever failed, the requests that joined must hear of it.
            subscription.complete(with: .failure(error))
            throw error
        }
        switch answer {
        case .answered(let result):
            heldDownload?.cancel()
            subscription.complete(with: .success(result))
            // A task cancelled meanwhile still fed the requests that joined it, but throws itself.
            try Task.checkCancellation()
            return result
        case .needsNetwork(let lookup):
            subscription.start { [self] context in
                try await decodeDownloaded(request, url: url, lookup: lookup, heldDownload: heldDownload, context: context)
            }
            return try await subscription.value()
        }
    }

    /// What a job can do without the network.
    private enum LocalAnswer {
        case answered(DecodedResult)
        /// The disk's answer (stale or missing) for the download to start from.
        case needsNetwork(DataFetcher.Lookup)
    }

    /// Memory (another job may have filled it since this request missed it), a processed image
    /// on disk, or the original bytes on disk, decoded here.
    private func answerWithoutNetwork(_ request: ImageRequest, url: URL) async throws -> LocalAnswer {
        if let image = memoryImage(for: request, counting: .hitsOnly) {
            return .answered(DecodedResult(image: image, source: .memory, bytesDownloaded: 0, isCoalesced: false))
        }
        if let derived = derivedImage(for: request) {
            return .answered(derived)
        }
        switch try fetcher.lookUp(request, url: url) {
        case .hit(let data):
            return .answered(try await decode(data, request: request, url: url, isCoalesced: false))
        case .staleWhileRevalidate(let entry, let data):
            revalidateInBackground(request, url: url, entry: entry, data: data)
            return .answered(try await decode(data, request: request, url: url, isCoalesced: false))
        case let other:
            return .needsNetwork(other)
        }
    }

    /// The work of an image job that needs the network: the bytes (shared with every other size
    /// of the same image), then one decode.
    private func decodeDownloaded(
        _ request: ImageRequest,
        url: URL,
        lookup: DataFetcher.Lookup?,
        heldDownload: DataSubscription?,
        context: TaskCoalescer<ImageTaskKey, DecodedResult>.JobContext
    ) async throws -> DecodedResult {
        trace?.mark(.imageJobStarted)
        let priority = context.priority
        let reportProgress: @Sendable (Int64, Int64?) -> Void = { received, expected in
            context.reportProgress(received, expected)
        }
        let data: DataSubscription
        if let heldDownload {
            // The download joined when the job began (it may have finished since: its value
            // is kept for this subscriber).
            heldDownload.setProgress(reportProgress)
            heldDownload.setPriority(priority)
            instrumentation.record(.coalesced)
            data = heldDownload
        } else {
            data = dataSubscription(request, url: url, priority: priority, lookup: lookup, progress: reportProgress)
        }
        context.onPriorityChange(after: priority) { data.setPriority($0) }
        let response = try await data.value()
        trace?.mark(.dataDelivered)
        try Task.checkCancellation()
        return try await decode(response, request: request, url: url, isCoalesced: data.isCoalesced)
    }

    /// Starts one low-priority revalidation of a stale entry that is being served at once
    /// (`stale-while-revalidate`); concurrent ones join it.
    private func revalidateInBackground(_ request: ImageRequest, url: URL, entry: DiskCache.Entry, data: ImageDataResponse) {
        instrumentation.record(.revalidatingInBackground(url: url))
        let subscription = dataSubscription(request, url: url, priority: .low, lookup: .stale(entry, data), progress: nil)
        Task { _ = try? await subscription.value() }
    }

    // MARK: Data

    /// Joins (or starts) the data job for `request` synchronously; await its `value()`.
    func dataSubscription(for request: ImageRequest) throws -> DataSubscription {
        let (request, url) = try resolver.resolve(request)
        return dataSubscription(request, url: url, priority: request.priority, lookup: nil, progress: nil)
    }

    private func dataSubscription(
        _ request: ImageRequest,
        url: URL,
        priority: ImageRequest.Priority,
        lookup: DataFetcher.Lookup?,
        progress: (@Sendable (Int64, Int64?) -> Void)?
    ) -> DataSubscription {
        let subscription = dataJobs.subscribe(to: DataTaskKey(request), priority: priority, progress: progress)
        if subscription.isCoalesced {
            instrumentation.record(.coalesced)
        } else {
            subscription.start { [fetcher] context in
                try await fetcher.fetch(request, url: url, context: context, lookup: lookup)
            }
        }
        return subscription
    }

    // MARK: Memory and decoding

    /// The memory cache's image for `request`, keyed as a task would key it (first frame).
    func cachedImage(for request: ImageRequest) -> DecodedImage? {
        memoryImage(for: resolver.keyed(request), counting: .hitsOnly)
    }

    /// Removes what the caches hold for `request`: its image at its target size and at full
    /// size, its bytes, and any failure remembered for it.
    func removeCachedImage(for request: ImageRequest) {
        let request = resolver.keyed(request)
        memoryCache?.removeValue(forKey: ImageCacheKey(request))
        memoryCache?.removeValue(forKey: ImageCacheKey(cacheKey: request.cacheKey))
        resolver.diskCache?.removeEntry(forKey: request.cacheKey)
        derivedImages?.removeDerivedImages(forKey: request.cacheKey)
        fetcher.forgetFailure(forKey: request.cacheKey)
    }

    /// What a memory lookup adds to the statistics: a task's first lookup counts its miss; the
    /// first-frame probe and a job's second look count only hits.
    enum LookupCounting {
        case hitsAndMisses
        case hitsOnly
    }

    /// The memory cache's image for `request` (already keyed by the resolver). Reloads never
    /// read memory.
    func memoryImage(for request: ImageRequest, counting: LookupCounting) -> DecodedImage? {
        guard let memoryCache,
              request.options.isDisjoint(with: [.skipMemoryCache, .reloadIgnoringCachedData, .reloadRevalidatingCachedData])
        else {
            return nil
        }
        let image = memoryCache.value(forKey: ImageCacheKey(request))
        if image != nil || counting == .hitsAndMisses {
            instrumentation.record(.memoryLookup(hit: image != nil))
        }
        return image
    }

    /// Decodes `data` for `request` (on a decoding thread when the decoder says it is expensive)
    /// and stores the image in the memory cache.
    private func decode(_ data: ImageDataResponse, request: ImageRequest, url: URL, isCoalesced: Bool) async throws -> DecodedResult {
        var image: DecodedImage
        let decoder = decoderRegistry.decoder(for: data.info, fallback: self.decoder)
        let targetSize = try pixelLimit.targetSize(for: data.info, requested: request.targetSize, decoder: decoder, url: url)
        do {
            if decoder.isExpensive(data.data, info: data.info, targetSize: targetSize) {
                image = try await DecodingQueue.shared.run { try decoder.decode(data.data, info: data.info, targetSize: targetSize) }
            } else {
                image = try decoder.decode(data.data, info: data.info, targetSize: targetSize)
            }
        } catch {
            // Bytes no decoder can read are not kept for the next launch.
            resolver.diskCache?.removeEntry(forKey: request.cacheKey)
            throw ImagePipeline.Error.decodingFailed(url: url, underlying: error)
        }
        try pixelLimit.checkDecoded(image, info: data.info, url: url)
        trace?.mark(.decoded)
        if !request.processorChain.isEmpty {
            image = try request.processorChain.apply(to: image, url: url)
        }
        derivedImages?.originalDidLoad(data, image: image, request: request)
        if let memoryCache, !request.options.contains(.skipMemoryCache) {
            let key = ImageCacheKey(request)
            switch data.memoryLifetime {
            case .unlimited:
                memoryCache.setValue(image, forKey: key, cost: image.cost)
            case .until(let expiry):
                memoryCache.setValue(image, forKey: key, cost: image.cost, expiresAt: expiry)
            case .doNotKeep:
                // `no-store`, `no-cache` or already stale: an older image must not outlive it either.
                memoryCache.removeValue(forKey: key)
            }
            trace?.mark(.memoryStored)
        }
        return DecodedResult(image: image, source: data.source, bytesDownloaded: data.bytesDownloaded, isCoalesced: isCoalesced)
    }
}

extension ImageJobs {
    /// The processed image kept on disk for `request` (``ImagePipeline/DiskCachePolicy``),
    /// stored in memory like a decoded one.
    private func derivedImage(for request: ImageRequest) -> DecodedResult? {
        guard let image = derivedImages?.image(for: request) else { return nil }
        instrumentation.record(.diskHit)
        if let memoryCache, !request.options.contains(.skipMemoryCache) {
            memoryCache.setValue(image, forKey: ImageCacheKey(request), cost: image.cost)
        }
        return DecodedResult(image: image, source: .disk, bytesDownloaded: 0, isCoalesced: false)
    }
}

/// Identifies an image job: same bytes, same target size, same options, same processors.
struct ImageTaskKey: Hashable, Sendable {
    var cacheKey: String
    var targetSize: PixelSize?
    var options: ImageRequest.Options
    var processors: [String]

    init(_ request: ImageRequest) {
        cacheKey = request.cacheKey
        targetSize = request.targetSize
        options = request.options
        processors = request.processorChain.identifiers
    }
}

/// What an image job hands its subscribers.
struct DecodedResult: Sendable {
    var image: DecodedImage
    var source: ImageResponse.Source
    var bytesDownloaded: Int
    var isCoalesced: Bool
}
