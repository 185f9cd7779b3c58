import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Produces an image's original bytes, in one direction: the disk cache when its entry may be
/// served, else the network (conditionally when a stale entry has validators), validating every
/// download before anything is stored.
///
/// ``lookUp(_:url:)`` is synchronous, so a disk hit needs no task of its own; the pipeline runs
/// ``fetch(_:url:context:lookup:)`` in a coalesced data job (see ``TaskCoalescer``) only when
/// the network is needed.
final class DataFetcher: Sendable {
    typealias Context = TaskCoalescer<DataTaskKey, ImageDataResponse>.JobContext

    /// What the disk cache can do for a request.
    enum Lookup: Sendable {
        /// Serve these bytes (fresh, allowed offline, or a file URL).
        case hit(ImageDataResponse)
        /// Stale: revalidate, and serve these bytes if the server confirms them (or fails and
        /// the entry allows it).
        case stale(DiskCache.Entry, ImageDataResponse)
        /// Nothing usable: download.
        case miss
    }

    private let diskCache: DiskCache?
    private let downloader: Downloader
    private let validator: ResponseValidator
    private let storePolicy: DiskStorePolicy
    private let freshness: FreshnessCheck
    private let retryPolicy: ImagePipeline.RetryPolicy
    private let clock: any CacheClock
    private let instrumentation: PipelineInstrumentation
    private let trace: StageTrace?

    init(configuration: ImagePipeline.Configuration, diskCache: DiskCache?, instrumentation: PipelineInstrumentation) {
        self.diskCache = diskCache
        self.downloader = Downloader(
            maxConcurrentDownloads: configuration.maxConcurrentDownloads,
            loader: configuration.dataLoader,
            clock: configuration.clock,
            instrumentation: instrumentation,
            limits: DataLoadLimits(
                maxResponseBytes: configuration.maxResponseBytes, maxPixelCount: configuration.maxPixelCount
            )
        )
        self.validator = ResponseValidator(maxPixelCount: configuration.maxPixelCount)
        self.storePolicy = DiskStorePolicy(storesAuthorizedResponses: configuration.storesAuthorizedResponsesOnDisk)
        self.freshness = FreshnessCheck(policy: configuration.freshnessPolicy, clock: configuration.clock)
        self.retryPolicy = configuration.retryPolicy
        self.clock = configuration.clock
        self.instrumentation = instrumentation
        self.trace = configuration.stageTrace
    }

    // MARK: Disk

    /// The disk cache's answer for `request`, synchronously. A hit is counted here.
    ///
    /// - Throws: ``ImagePipeline/Error/notCached(_:)`` offline with nothing cached; a transport
    ///   error for an unreadable file URL; a validation error for a file that is not an image.
    func lookUp(_ request: ImageRequest, url: URL) throws -> Lookup {
        if url.isFileURL {
            return .hit(try loadFile(url))
        }
        let offline = request.options.contains(.returnCacheDataDontLoad)
        let cached = cachedEntry(for: request)
        trace?.mark(.diskRead)
        guard let cached else {
            if offline { throw ImagePipeline.Error.notCached(url) }
            return .miss
        }
        guard let info = ImageInfo(data: cached.data) else {
            // Bytes that passed validation once but no longer parse: never serve them.
            diskCache?.removeEntry(forKey: request.cacheKey)
            if offline { throw ImagePipeline.Error.notCached(url) }
            return .miss
        }
        let fromDisk = ImageDataResponse(data: cached.data, info: info, source: .disk, bytesDownloaded: 0)
        trace?.mark(.verified)
        if offline || freshness.isFresh(cached.metadata, for: request.options) {
            instrumentation.record(.diskHit)
            return .hit(fromDisk)
        }
        return .stale(cached, fromDisk)
    }

    /// The bytes for `request`: `lookup` (or a new disk lookup), then the network as needed.
    func fetch(_ request: ImageRequest, url: URL, context: Context, lookup: Lookup? = nil) async throws -> ImageDataResponse {
        trace?.mark(.dataJobStarted)
        switch try lookup ?? lookUp(request, url: url) {
        case .hit(let response):
            return response
        case .miss:
            return try await download(request, url: url, revalidating: nil, context: context)
        case .stale(let entry, let fromDisk):
            do {
                return try await download(request, url: url, revalidating: (entry, fromDisk), context: context)
            } catch let error as ImagePipeline.Error where freshness.mayServeStale(entry.metadata, after: error) {
                instrumentation.record(.diskHit)
                instrumentation.record(.servedStale(url: url, error: error))
                return fromDisk
            }
        }
    }

    private func cachedEntry(for request: ImageRequest) -> DiskCache.Entry? {
        guard let diskCache, request.options.isDisjoint(with: [.skipDiskCache, .reloadIgnoringCachedData]) else {
            return nil
        }
        return diskCache.entry(forKey: request.cacheKey)
    }

    private func loadFile(_ url: URL) throws -> ImageDataResponse {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ImagePipeline.Error.transport(url: url, underlying: error)
        }
        let info = try validator.validate(data, url: url, contentType: nil, expectedLength: nil)
        return ImageDataResponse(data: data, info: info, source: .disk, bytesDownloaded: 0)
    }

    // MARK: Network

    /// Downloads `url`, retrying transient failures as the retry policy allows.
    private func download(
        _ request: ImageRequest,
        url: URL,
        revalidating cached: (entry: DiskCache.Entry, response: ImageDataResponse)?,
        context: Context
    ) async throws -> ImageDataResponse {
        try await retryPolicy.run {
            try await downloadOnce(request, url: url, revalidating: cached, context: context)
        }
    }

    /// Downloads `url` once, conditionally when a cached entry with validators is being
    /// revalidated. A failed status throws a ``DownloadFailure`` carrying its `Retry-After`.
    private func downloadOnce(
        _ request: ImageRequest,
        url: URL,
        revalidating cached: (entry: DiskCache.Entry, response: ImageDataResponse)?,
        context: Context
    ) async throws -> ImageDataResponse {
        var urlRequest = request.urlRequest
        let revalidated = cached.flatMap { $0.entry.metadata.hasValidators ? $0 : nil }
        if let revalidated {
            for (field, value) in revalidated.entry.metadata.conditionalHeaders() {
                urlRequest.setValue(value, forHTTPHeaderField: field)
            }
        }

        let response = try await downloader.send(urlRequest, url: url, isConditional: revalidated != nil, context: context)

        if let revalidated, response.statusCode == 304 {
            refreshMetadata(of: revalidated.entry, key: request.cacheKey, with: response)
            instrumentation.record(.diskHit)
            instrumentation.record(.revalidated(url: url, notModified: true))
            var confirmed = revalidated.response
            confirmed.source = .revalidated
            return confirmed
        }
        if let status = response.statusCode, !(200..<300).contains(status) {
            let retryAfter = response.httpResponse?.value(forHTTPHeaderField: "Retry-After").flatMap {
                ImagePipeline.RetryPolicy.seconds(fromRetryAfter: $0, now: clock.now)
            }
            throw DownloadFailure(.badStatusCode(url: url, statusCode: status), retryAfter: retryAfter)
        }
        let headers = response.headers
        let info = try validator.validate(
            response.data, url: url, contentType: headers["Content-Type"], expectedLength: response.expectedLength
        )

        instrumentation.record(.diskMiss)
        if revalidated != nil {
            instrumentation.record(.revalidated(url: url, notModified: false))
        }
        store(response, headers: headers, for: request)
        return ImageDataResponse(data: response.data, info: info, source: .network, bytesDownloaded: response.data.count)
    }

    // MARK: Storage

    private func store(_ response: Downloader.Response, headers: HTTPHeaders, for request: ImageRequest) {
        guard let diskCache else { return }
        switch storePolicy.decision(for: request, headers: headers, requestTime: response.requestTime, responseTime: response.responseTime) {
        case .store(let metadata):
            diskCache.store(response.data, metadata: metadata, forKey: request.cacheKey)
        case .remove:
            diskCache.removeEntry(forKey: request.cacheKey)
        case .skip:
            break
        }
    }

    private func refreshMetadata(of entry: DiskCache.Entry, key: String, with response: Downloader.Response) {
        guard let diskCache else { return }
        if let refreshed = entry.metadata.revalidated(with: response.headers, requestTime: response.requestTime, responseTime: response.responseTime) {
            diskCache.updateMetadata(refreshed, forKey: key)
        } else {
            diskCache.removeEntry(forKey: key)
        }
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
