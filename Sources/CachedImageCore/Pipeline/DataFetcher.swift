import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Produces an image's original bytes: from the disk cache when fresh, by revalidating when
/// stale, or by downloading. Validates every download before anything is stored.
///
/// The pipeline runs one fetch per ``DataTaskKey`` at a time (see ``TaskCoalescer``).
final class DataFetcher: Sendable {
    typealias Context = TaskCoalescer<DataTaskKey, ImageDataResponse>.JobContext

    private let configuration: ImagePipeline.Configuration
    private let diskCache: DiskCache?
    private let queue: WorkQueue
    private let statistics: Locked<PipelineStatistics>
    private let events: EventBroadcaster<ImagePipeline.Event>

    init(
        configuration: ImagePipeline.Configuration,
        diskCache: DiskCache?,
        statistics: Locked<PipelineStatistics>,
        events: EventBroadcaster<ImagePipeline.Event>
    ) {
        self.configuration = configuration
        self.diskCache = diskCache
        self.queue = WorkQueue(maxConcurrentCount: configuration.maxConcurrentDownloads)
        self.statistics = statistics
        self.events = events
    }

    func fetch(_ request: ImageRequest, url: URL, context: Context) async throws -> ImageDataResponse {
        if url.isFileURL {
            return try loadFile(url)
        }
        let options = request.options
        let cached = cachedEntry(for: request)
        let offline = options.contains(.returnCacheDataDontLoad)

        guard let cached else {
            if offline { throw ImagePipeline.Error.notCached(url) }
            return try await download(request, url: url, revalidating: nil, context: context)
        }
        guard let info = ImageInfo(data: cached.data) else {
            // Bytes that passed validation once but no longer parse: never serve them.
            diskCache?.removeEntry(forKey: request.cacheKey)
            if offline { throw ImagePipeline.Error.notCached(url) }
            return try await download(request, url: url, revalidating: nil, context: context)
        }
        let fromDisk = ImageDataResponse(data: cached.data, info: info, source: .disk, bytesDownloaded: 0)
        if offline || isFresh(cached.metadata, revalidateRequested: options.contains(.reloadRevalidatingCachedData)) {
            count { $0.diskHits += 1 }
            return fromDisk
        }
        do {
            return try await download(request, url: url, revalidating: (cached, fromDisk), context: context)
        } catch let error as ImagePipeline.Error where error.isTransient && !cached.metadata.mustRevalidate {
            // Stale-if-error: an old image beats a broken one unless the server forbade it.
            count {
                $0.diskHits += 1
                $0.staleResponsesServed += 1
            }
            events.send(.servedStale(url: url, error: error))
            return fromDisk
        }
    }

    // MARK: Disk

    private func cachedEntry(for request: ImageRequest) -> DiskCache.Entry? {
        guard let diskCache,
              !request.options.contains(.skipDiskCache),
              !request.options.contains(.reloadIgnoringCachedData)
        else { return nil }
        return diskCache.entry(forKey: request.cacheKey)
    }

    private func isFresh(_ metadata: CachedResponseMetadata, revalidateRequested: Bool) -> Bool {
        switch configuration.freshnessPolicy {
        case .ignoreHTTPHeaders:
            return !revalidateRequested
        case .http(let heuristicLifetime):
            let fresh = metadata.isFresh(at: configuration.clock.now, heuristicLifetime: heuristicLifetime)
            if revalidateRequested {
                return fresh && metadata.isImmutable
            }
            return fresh
        }
    }

    private func loadFile(_ url: URL) throws -> ImageDataResponse {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ImagePipeline.Error.transport(url: url, underlying: error)
        }
        let info = try validateBody(data, url: url, contentType: nil, expectedLength: nil)
        return ImageDataResponse(data: data, info: info, source: .disk, bytesDownloaded: 0)
    }

    // MARK: Network

    /// Downloads `url`, retrying transient failures as ``ImagePipeline/Configuration/retryPolicy``
    /// allows. Waits happen outside the download queue, so a retry does not hold a slot.
    private func download(
        _ request: ImageRequest,
        url: URL,
        revalidating cached: (entry: DiskCache.Entry, response: ImageDataResponse)?,
        context: Context
    ) async throws -> ImageDataResponse {
        let policy = configuration.retryPolicy
        var retry = 0
        while true {
            var retryAfter: String?
            do {
                return try await downloadOnce(request, url: url, revalidating: cached, context: context, retryAfter: &retryAfter)
            } catch let error as ImagePipeline.Error where error.isTransient {
                retry += 1
                guard let delay = policy.delay(beforeRetry: retry, retryAfter: retryAfter, now: configuration.clock.now) else {
                    throw error
                }
                try Task.checkCancellation()
                try await policy.sleep(delay)
                try Task.checkCancellation()
            }
        }
    }

    /// Downloads `url` once, conditionally when a cached entry with validators is being
    /// revalidated. A failed response's `Retry-After` header is passed back in `retryAfter`.
    private func downloadOnce(
        _ request: ImageRequest,
        url: URL,
        revalidating cached: (entry: DiskCache.Entry, response: ImageDataResponse)?,
        context: Context,
        retryAfter: inout String?
    ) async throws -> ImageDataResponse {
        var urlRequest = request.urlRequest
        let isConditional = cached?.entry.metadata.hasValidators ?? false
        if let cached, isConditional {
            for (field, value) in cached.entry.metadata.conditionalHeaders() {
                urlRequest.setValue(value, forHTTPHeaderField: field)
            }
        }

        let (data, response, requestTime, responseTime) = try await send(urlRequest, url: url, isConditional: isConditional, context: context)
        let httpResponse = response as? HTTPURLResponse

        if let cached, isConditional, httpResponse?.statusCode == 304 {
            refreshMetadata(of: cached.entry, key: request.cacheKey, response: httpResponse, requestTime: requestTime, responseTime: responseTime)
            count {
                $0.diskHits += 1
                $0.notModifiedResponses += 1
            }
            events.send(.revalidated(url: url, notModified: true))
            var revalidated = cached.response
            revalidated.source = .revalidated
            return revalidated
        }

        if let status = httpResponse?.statusCode, !(200..<300).contains(status) {
            retryAfter = httpResponse?.value(forHTTPHeaderField: "Retry-After")
            throw ImagePipeline.Error.badStatusCode(url: url, statusCode: status)
        }
        let headers = httpResponse.map(HTTPHeaders.init) ?? HTTPHeaders([:])
        let expectedLength = headers["Content-Encoding"] == nil && response.expectedContentLength > 0
            ? Int(response.expectedContentLength) : nil
        let info = try validateBody(data, url: url, contentType: headers["Content-Type"], expectedLength: expectedLength)

        count { $0.diskMisses += 1 }
        if isConditional {
            events.send(.revalidated(url: url, notModified: false))
        }
        store(data, headers: headers, request: request, requestTime: requestTime, responseTime: responseTime)
        return ImageDataResponse(data: data, info: info, source: .network, bytesDownloaded: data.count)
    }

    /// Waits for a download slot (at the job's current priority, following its changes), then
    /// loads. Maps transport failures to ``ImagePipeline/Error/transport(url:underlying:)``.
    private func send(
        _ urlRequest: URLRequest,
        url: URL,
        isConditional: Bool,
        context: Context
    ) async throws -> (Data, URLResponse, requestTime: Date, responseTime: Date) {
        let ticket = queue.enqueue(priority: context.priority)
        context.onPriorityChange { ticket.setPriority($0) }
        let loader = configuration.dataLoader
        let clock = configuration.clock
        return try await ticket.run {
            try Task.checkCancellation()
            self.count {
                $0.networkRequests += 1
                if isConditional { $0.revalidations += 1 }
            }
            self.events.send(.networkRequest(url: url, isConditional: isConditional))
            let requestTime = clock.now
            do {
                let (data, response) = try await loader.loadData(for: urlRequest) { received, expected in
                    context.reportProgress(received, expected)
                }
                self.count { $0.bytesDownloaded += data.count }
                return (data, response, requestTime, clock.now)
            } catch {
                if Task.isCancelled || error is CancellationError || (error as? URLError)?.code == .cancelled {
                    throw CancellationError()
                }
                if let error = error as? ImagePipeline.Error {
                    throw error
                }
                throw ImagePipeline.Error.transport(url: url, underlying: error)
            }
        }
    }

    // MARK: Validation and storage

    /// Refuses anything that is not a complete image of a known format within the pixel limit,
    /// before it can reach a decoder or the disk cache.
    private func validateBody(_ data: Data, url: URL, contentType: String?, expectedLength: Int?) throws -> ImageInfo {
        if data.isEmpty {
            throw ImagePipeline.Error.emptyResponse(url: url)
        }
        if let expectedLength, data.count < expectedLength {
            throw ImagePipeline.Error.truncatedResponse(url: url, received: data.count, expected: expectedLength)
        }
        guard let info = ImageInfo(data: data) else {
            throw ImagePipeline.Error.notAnImage(url: url, contentType: contentType)
        }
        if let size = info.pixelSize, size.pixelCount > configuration.maxPixelCount {
            throw ImagePipeline.Error.imageTooLarge(url: url, size: size, maxPixelCount: configuration.maxPixelCount)
        }
        guard ImageInfo.isComplete(data, format: info.format) else {
            throw ImagePipeline.Error.truncatedResponse(url: url, received: data.count, expected: expectedLength)
        }
        return info
    }

    private func store(_ data: Data, headers: HTTPHeaders, request: ImageRequest, requestTime: Date, responseTime: Date) {
        guard let diskCache, !request.options.contains(.skipDiskCache) else { return }
        if !configuration.storesAuthorizedResponsesOnDisk,
           request.urlRequest.value(forHTTPHeaderField: "Authorization") != nil {
            // A private response: memory only (an older shared copy must not outlive it either).
            diskCache.removeEntry(forKey: request.cacheKey)
            return
        }
        // `nil` metadata means `no-store`: such bytes never touch the disk.
        guard let metadata = CachedResponseMetadata(headers: headers, requestTime: requestTime, responseTime: responseTime) else {
            diskCache.removeEntry(forKey: request.cacheKey)
            return
        }
        diskCache.store(data, metadata: metadata, forKey: request.cacheKey)
    }

    private func refreshMetadata(of entry: DiskCache.Entry, key: String, response: HTTPURLResponse?, requestTime: Date, responseTime: Date) {
        guard let diskCache else { return }
        let headers = response.map(HTTPHeaders.init) ?? HTTPHeaders([:])
        if let refreshed = entry.metadata.revalidated(with: headers, requestTime: requestTime, responseTime: responseTime) {
            diskCache.updateMetadata(refreshed, forKey: key)
        } else {
            diskCache.removeEntry(forKey: key)
        }
    }

    private func count(_ update: (inout PipelineStatistics) -> Void) {
        statistics.withLock(update)
    }
}

/// Identifies a data job: requests with the same cache key and cache options share a download.
struct DataTaskKey: Hashable, Sendable {
    var cacheKey: String
    var options: ImageRequest.Options

    init(_ request: ImageRequest) {
        cacheKey = request.cacheKey
        // Memory options do not change what the data job does.
        options = request.options.subtracting(.skipMemoryCache)
    }
}
