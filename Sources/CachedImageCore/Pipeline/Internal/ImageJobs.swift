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
        case memory(MemoryHit, ImageRequest)
        /// The image job; when this task created it and the bytes were already being
        /// downloaded, `heldDownload` is that download, joined at once so that it outlives
        /// whoever started it (a prefetch stopped right after), until the job knows whether it
        /// needs it.
        case job(Subscription, ImageRequest, URL, heldDownload: DataSubscription?)
        case failure(ImagePipeline.Error)
    }

    let memoryCache: MemoryCache<ImageCacheKey, DecodedImage>?
    let decoder: any ImageDecoding
    /// The cap for requests without a target size (``ImagePipeline/Configuration/maximumDecodedPixelSize``).
    let maximumDecodedPixelSize: PixelSize?
    /// Expensive decodes, admitted by the bytes they allocate.
    let decodingQueue: DecodingQueue
    let decoderRegistry: ImageDecoderRegistry
    let pixelLimit: PixelLimit
    let resolver: RequestResolver
    let fetcher: DataFetcher
    let instrumentation: PipelineInstrumentation
    private let trace: StageTrace?
    let derivedImages: DerivedImageStore?
    /// Encodes processed images for the disk after they are delivered.
    let derivedEncodes = DerivedImageEncodingQueue()
    let variants = MemoryVariants()
    let responseRecords = MemoryResponseRecords()
    /// The size each image was last shown at (``otherSizeImage(for:)``).
    let shownSizes = ShownSizes()
    let clock: any CacheClock
    /// When requests with `.showProgressivePreviews` get a preview (``ImageJobs+Previews``).
    let progressivePreviewPolicy: ProgressivePreviewPolicy
    /// Time the first frame's synchronous disk reads take per frame (``ImagePipeline/Configuration/synchronousDiskRead``).
    let firstFrameBudget: FrameTimeBudget?
    /// Which entries the first frame reads synchronously.
    let configurationSynchronousDiskRead: ImagePipeline.SynchronousDiskRead?
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
        self.maximumDecodedPixelSize = configuration.maximumDecodedPixelSize
        self.decodingQueue = DecodingQueue(budget: configuration.decodingMemoryBudget)
        self.configurationSynchronousDiskRead = configuration.synchronousDiskRead
        self.firstFrameBudget = configuration.synchronousDiskRead.map {
            FrameTimeBudget(timePerFrame: $0.timePerFrame, frameInterval: $0.frameInterval)
        }
        self.decoderRegistry = configuration.decoderRegistry
        self.pixelLimit = PixelLimit(maximumPixelCount: configuration.maximumPixelCount)
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
        if derivedImages != nil, let diskCache {
            diskCache.flushDependencies.withLock { [derivedEncodes] in
                $0.append { [weak derivedEncodes] in
                    derivedEncodes?.waitUntilIdle()
                    return derivedEncodes != nil
                }
            }
        }
        self.clock = configuration.clock
        self.progressivePreviewPolicy = configuration.progressivePreviewPolicy
    }

    /// Downloads waiting for a slot in the download queue.
    var queuedDownloadCount: Int { fetcher.queuedDownloadCount }

    /// The download queue's link rule.
    var link: LinkScheduler { fetcher.link }

    /// Data jobs under way: each holds, waits for, or is between slots of one download (tests).
    var activeDataJobCount: Int { dataJobs.activeJobCount }

    // MARK: Image tasks

    /// Resolves the task's request, answers from memory, or joins (or creates) its image job,
    /// synchronously, so shared work is joined before the caller goes on.
    func begin(
        _ task: ImageTask,
        progress: (@Sendable (Int64, Int64?) -> Void)?,
        preview: (@Sendable (ImageResponse) -> Void)? = nil,
        stale: (@Sendable (ImageResponse) -> Void)? = nil,
        size: (@Sendable (PixelSize) -> Void)? = nil
    ) -> Start {
        trace?.mark(.started)
        instrumentation.record(.taskStarted(id: task.id, url: task.request.url))
        let request: ImageRequest
        let url: URL
        do {
            (request, url) = try resolver.resolve(task.request)
        } catch {
            return .failure(error as? ImagePipeline.Error ?? .invalidURL(task.request.url))
        }
        if let hit = memoryImage(for: request, counting: .hitsAndMisses) {
            return .memory(hit, request)
        }
        trace?.mark(.memoryMissed)
        let priority = task.priority
        let subscription = imageJobs.subscribe(
            to: ImageTaskKey(request), priority: priority, progress: progress,
            updates: jobUpdates(for: task, request: request, preview: preview, stale: stale, size: size),
            observesImages: preview != nil || stale != nil
        )
        if subscription.isCoalesced { instrumentation.record(.coalesced) }
        let heldDownload = subscription.isOwner ? dataJobs.join(DataTaskKey(request), priority: priority) : nil
        // A download in flight (a prefetch, another size) read the size already: the task has it
        // before this returns.
        if let size = heldDownload?.imageSize { subscription.report(.imageSize(size)) }
        task.bind(to: subscription, subscribedAt: priority)
        trace?.mark(.jobJoined)
        return .job(subscription, request, url, heldDownload: heldDownload)
    }

    /// Produces the task's response (running its job when the task created it) and reports how
    /// the task ended.
    func complete(_ task: ImageTask, _ start: Start) async throws -> ImageResponse {
        try await reporting(task) {
            switch start {
            case .failure(let error):
                throw error
            case .memory(let hit, let resolved):
                return (resolved, memoryResult(hit), false)
            case .job(let subscription, let resolved, let resolvedURL, let heldDownload):
                let result = subscription.isOwner
                    ? try await run(subscription, request: resolved, url: resolvedURL, heldDownload: heldDownload)
                    : try await subscription.value()
                return (resolved, result, subscription.isCoalesced || result.isCoalesced)
            }
        }
    }

    /// Runs `body` for `task` and reports how the task ended: completed, with the response made
    /// of what `body` returns, failed, or cancelled.
    func reporting(
        _ task: ImageTask, _ body: () async throws -> (request: ImageRequest, result: DecodedResult, isCoalesced: Bool)
    ) async throws -> ImageResponse {
        let url = task.request.url
        do {
            let (request, result, isCoalesced) = try await body()
            // Cancelled while it ran (a memory hit never awaits): it delivers nothing.
            try Task.checkCancellation()
            let duration = task.elapsedTime
            trace?.mark(.completed)
            instrumentation.record(.taskCompleted(id: task.id, url: url, source: result.source, duration: duration))
            var response = ImageResponse(
                image: result.image,
                request: request,
                source: result.source,
                metrics: TaskMetrics(startDate: task.startDate, duration: duration, isCoalesced: isCoalesced, bytesDownloaded: result.bytesDownloaded),
                httpResponse: result.httpResponse
            )
            response.displayRetention = result.displayRetention
            response.mark(result.staleness)
            return response
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
            if case ImagePipeline.Error.notCached = error, subscription.takesUpdates, let stored = storedStaleCopy(request, url: url) {
                // Nothing may be asked (offline, cache only): a view still shows what the disk
                // holds, marked stale, and the request fails as it must.
                subscription.start { [self] context in
                    _ = await showStale(stored, request: request, url: url, context: context)
                    throw error
                }
                return try await subscription.value()
            }
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
        if let hit = memoryImage(for: request, counting: .hitsOnly) {
            return .answered(memoryResult(hit))
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
        let previewer = makePreviewer(request, url: url, context: context)
        defer { previewer?.finish() }
        // The body's chunks for the previewer; the size the download read for the job's tasks.
        let bytes: @Sendable (JobUpdate) -> Void = { [previewChunks = previewer?.bodyChunks] update in
            if case .imageSize = update {
                context.report(update)
            } else {
                previewChunks?(update)
            }
        }
        let data: DataSubscription
        if let heldDownload {
            // The download joined when the job began (it may have finished since: its value
            // is kept for this subscriber).
            heldDownload.setProgress(reportProgress)
            heldDownload.setUpdates(bytes)
            heldDownload.setPriority(priority)
            instrumentation.record(.coalesced)
            data = heldDownload
        } else {
            // A job all of whose requests left before it ran asks nothing of the network.
            try Task.checkCancellation()
            data = dataSubscription(request, url: url, priority: priority, lookup: lookup, progress: reportProgress, updates: bytes)
        }
        context.onPriorityChange(after: priority) { data.setPriority($0) }
        // While the stored copy is revalidated, a view shows it (decoded once: a 304, the usual
        // answer, keeps this decode; it is reported before the job can fail, so a view offline
        // has it first, at the cost of one decode's wait for a fast answer).
        let shownStale = await showStale(lookup, request: request, url: url, context: context)
        let response = try await data.value()
        // No preview from here on: the final image is next.
        previewer?.finish()
        trace?.mark(.dataDelivered)
        try Task.checkCancellation()
        if let shownStale, response.source != .network, response.data == shownStale.data.data {
            var result = keep(shownStale.image, decodedFrom: response, request: request, isCoalesced: data.isCoalesced)
            result.staleness = response.staleness
            return result
        }
        return try await decode(response, request: request, url: url, isCoalesced: data.isCoalesced)
    }

    /// Starts one low-priority revalidation of a stale entry that is being served at once
    /// (`stale-while-revalidate`); concurrent ones join it.
    func revalidateInBackground(_ request: ImageRequest, url: URL, entry: DiskCache.Entry, data: ImageDataResponse) {
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

    /// Joins the download in flight for `request`'s bytes, if any (nothing is started): a
    /// handover holds it until the request replacing another one has joined it.
    func holdDownload(for request: ImageRequest) -> DataSubscription? {
        guard let (request, _) = try? resolver.resolve(request) else { return nil }
        return dataJobs.join(DataTaskKey(request), priority: request.priority)
    }

    func dataSubscription(
        _ request: ImageRequest,
        url: URL,
        priority: ImageRequest.Priority,
        lookup: DataFetcher.Lookup?,
        progress: (@Sendable (Int64, Int64?) -> Void)?,
        updates: (@Sendable (JobUpdate) -> Void)? = nil
    ) -> DataSubscription {
        let subscription = dataJobs.subscribe(to: DataTaskKey(request), priority: priority, progress: progress, updates: updates)
        if subscription.isCoalesced {
            instrumentation.record(.coalesced)
        } else {
            subscription.start { [fetcher] context in
                try await fetcher.fetch(request, url: url, context: context, lookup: lookup)
            }
        }
        return subscription
    }

    // MARK: Decoding

    /// Decodes `data` for `request` (on a decoding thread when the decoder says it is expensive)
    /// and stores the image in the memory cache.
    func decode(_ data: ImageDataResponse, request: ImageRequest, url: URL, isCoalesced: Bool) async throws -> DecodedResult {
        let image = try await decodedImage(data, request: request, url: url)
        return keep(image, decodedFrom: data, request: request, isCoalesced: isCoalesced)
    }

    /// The image `request` asks for, decoded from `data` with its processors applied, kept
    /// nowhere yet.
    func decodedImage(_ data: ImageDataResponse, request: ImageRequest, url: URL) async throws -> DecodedImage {
        var image: DecodedImage
        let decoder = decoderRegistry.decoder(for: data.info, fallback: self.decoder)
        let target = try pixelLimit.limited(request.decodingTarget(maximumSize: maximumDecodedPixelSize), for: data.info, decoder: decoder, url: url)
        do {
            image = try await decodeImage(data.data, info: data.info, target: target, decoder: decoder)
        } catch is CancellationError {
            // Cancelled while waiting for the decoding budget.
            throw CancellationError()
        } catch {
            // Bytes no decoder can read are not kept for the next launch.
            resolver.diskCache?.removeEntry(forKey: request.cacheKey)
            throw ImagePipeline.Error.decodingFailed(url: url, underlying: error)
        }
        try pixelLimit.checkDecoded(image, info: data.info, url: url)
        image.sourcePixelSize = request.processorChain.isEmpty ? data.info.pixelSize : nil
        trace?.mark(.decoded)
        if !request.processorChain.isEmpty {
            // On a decoding thread, admitted by the decoding memory budget (a processor
            // allocates about one more bitmap of the image's size), never on the shared pool.
            let chain = request.processorChain, input = image
            image = try await decodingQueue.run(bytes: DecodedImage.bitmapCost(of: input.pixelSize)) {
                try chain.apply(to: input, url: url)
            }
        }
        return image
    }

    /// Keeps `image`, decoded from `data` for `request`, in the memory cache (and its processed
    /// copy on disk) as the response allows, and makes the job's result of it.
    func keep(_ image: DecodedImage, decodedFrom data: ImageDataResponse, request: ImageRequest, isCoalesced: Bool) -> DecodedResult {
        // The processed image is delivered first; its encode for the disk comes after.
        derivedImages?.originalDidLoad(data, image: image, request: request) { [derivedEncodes] in derivedEncodes.enqueue($0) }
        keepInMemory(image, for: request, metadata: data.metadata, lifetime: data.memoryLifetime)
        if data.source == .network {
            // New bytes: an image shown from older ones is not shown again without revalidation.
            memoryCache?.removeValue(forKey: Self.shownKey(ImageCacheKey(request)))
        }
        trace?.mark(.memoryStored)
        return DecodedResult(
            image: image, source: data.source, bytesDownloaded: data.bytesDownloaded, isCoalesced: isCoalesced,
            httpResponse: data.httpResponse, displayRetention: Self.displayRetention(data, request: request),
            staleness: data.staleness
        )
    }
}

extension ImageJobs {
    /// Decodes at `target` with `decoder`: inline when it says the decode is cheap, else on the
    /// decoding queue once the bytes it allocates fit its budget.
    func decodeImage(_ data: Data, info: ImageInfo, target: DecodingTarget, decoder: any ImageDecoding) async throws -> DecodedImage {
        guard decoder.isExpensive(data, info: info, targetPixelSize: target.size) else {
            return try decoder.decode(data, info: info, target: target)
        }
        return try await decodingQueue.run(bytes: decodingBytes(info: info, target: target)) {
            try decoder.decode(data, info: info, target: target)
        }
    }

    /// The bitmap a decode allocates, from the header's size and the target; the whole budget
    /// (the decode runs alone) when the header gives no size.
    func decodingBytes(info: ImageInfo, target: DecodingTarget) -> Int {
        guard let size = info.pixelSize else { return decodingQueue.budget }
        return target.decodedBytes(of: size)
    }

    /// The processed image kept on disk for `request` (``ImagePipeline/DiskCachePolicy``),
    /// stored in memory like a decoded one.
    func derivedImage(for request: ImageRequest, limits: (entryBytes: Int, decodedBytes: Int)? = nil) -> DecodedResult? {
        guard let (image, metadata) = derivedImages?.image(for: request, limits: limits) else { return nil }
        instrumentation.record(.diskHit)
        keepInMemory(image, for: request, metadata: metadata, lifetime: .unlimited)
        return DecodedResult(
            image: image, source: .disk, bytesDownloaded: 0, isCoalesced: false,
            httpResponse: metadata.response?.withAge(metadata.currentAge(at: clock.now))
        )
    }
}
