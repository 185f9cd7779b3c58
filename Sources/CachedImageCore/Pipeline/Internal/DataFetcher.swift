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
        /// Stale within `stale-while-revalidate`: serve these bytes now and revalidate the entry
        /// once in the background.
        case staleWhileRevalidate(DiskCache.Entry, ImageDataResponse)
        /// Nothing usable: download.
        case miss
    }

    private let diskCache: DiskCache?
    private let downloader: Downloader
    private let validator: ResponseValidator
    private let maximumResponseBytes: Int
    private let storePolicy: DiskStorePolicy
    /// The pinned images' budget (``ImageRequest/Options/pinOnDisk``).
    private let pinnedSizeLimit: Int
    private let freshness: FreshnessCheck
    private let retryPolicy: ImagePipeline.RetryPolicy
    private let failures: FailureRegistry
    private let clock: any CacheClock
    private let instrumentation: PipelineInstrumentation
    private let trace: StageTrace?

    init(configuration: ImagePipeline.Configuration, diskCache: DiskCache?, instrumentation: PipelineInstrumentation) {
        self.diskCache = diskCache
        self.downloader = Downloader(
            maximumConcurrentDownloads: configuration.maximumConcurrentDownloads,
            loader: configuration.dataLoader,
            clock: configuration.clock,
            instrumentation: instrumentation,
            limits: DataLoadLimits(
                maximumResponseBytes: configuration.maximumResponseBytes,
                maximumPixelCount: PixelLimit(maximumPixelCount: configuration.maximumPixelCount).earlyLimit(for: configuration.decoder)
            ),
            requestModifier: configuration.requestModifier,
            resumableDownloadBudget: configuration.resumableDownloadBudget,
            linkClock: configuration.linkClock,
            adaptsToLink: configuration.adaptsDownloadsToLink
        )
        self.validator = ResponseValidator(
            maximumPixelCount: configuration.maximumPixelCount, registry: configuration.decoderRegistry, decoder: configuration.decoder
        )
        self.maximumResponseBytes = configuration.maximumResponseBytes
        self.storePolicy = DiskStorePolicy(storesAuthorizedResponses: configuration.storesAuthorizedResponsesOnDisk)
        self.pinnedSizeLimit = configuration.pinnedDiskCacheSizeLimit
        self.freshness = FreshnessCheck(policy: configuration.freshnessPolicy, clock: configuration.clock)
        self.retryPolicy = configuration.retryPolicy
        self.failures = FailureRegistry(policy: configuration.failureCachePolicy, clock: configuration.clock)
        self.clock = configuration.clock
        self.instrumentation = instrumentation
        self.trace = configuration.stageTrace
        // Only a pipeline with a background session adopts: the others' misses never wait.
        self.adoption = configuration.backgroundSession != nil && diskCache != nil ? BackgroundAdoption() : nil
    }

    /// Downloads waiting for a slot in the download queue.
    var queuedDownloadCount: Int { downloader.queuedCount }

    /// The download queue's link rule.
    var link: LinkScheduler { downloader.link }

    // MARK: Disk

    /// The disk cache's answer for `request`, synchronously. A hit is counted here.
    ///
    /// - Throws: ``ImagePipeline/Error/notCached(_:)`` offline with nothing cached (or only an
    ///   entry that may not be served without the network); a transport error for an unreadable
    ///   file URL; a validation error for a file that is not an image.
    func lookUp(_ request: ImageRequest, url: URL) throws -> Lookup {
        if url.isFileURL {
            return .hit(try loadFile(url))
        }
        if url.scheme?.lowercased() == "data" {
            return .hit(try validator.validateDataURL(url, maxBytes: maximumResponseBytes))
        }
        let offline = request.options.contains(.returnCacheDataDontLoad)
        // `only-if-cached` never asks the network either, but serves only what is fresh enough.
        let cacheOnly = offline || request.cacheDirectives.onlyIfCached
        let cached = cachedEntry(for: request)
        trace?.mark(.diskRead)
        guard let cached, Self.varyMatches(cached.metadata, request) else {
            if cacheOnly { throw ImagePipeline.Error.notCached(url) }
            return .miss
        }
        guard let info = validator.registry.info(for: cached.data, contentType: cached.metadata.contentType) else {
            // Bytes that passed validation once but no longer parse: never serve them.
            diskCache?.removeEntry(forKey: request.cacheKey)
            if cacheOnly { throw ImagePipeline.Error.notCached(url) }
            return .miss
        }
        let fromDisk = ImageDataResponse(
            data: cached.data, info: info, source: .disk, bytesDownloaded: 0,
            memoryLifetime: freshness.memoryLifetime(cached.metadata),
            metadata: cached.metadata,
            httpResponse: cached.metadata.response?.withAge(cached.metadata.currentAge(at: clock.now))
        )
        trace?.mark(.verified)
        if freshness.isFresh(cached.metadata, for: request) {
            instrumentation.record(.diskHit)
            return .hit(fromDisk)
        }
        if offline {
            guard freshness.mayServeWithoutNetwork(cached.metadata) else { throw ImagePipeline.Error.notCached(url) }
            instrumentation.record(.diskHit)
            var stale = fromDisk
            stale.staleness = Staleness()
            return .hit(stale)
        }
        if cacheOnly { throw ImagePipeline.Error.notCached(url) }
        if freshness.mayServeWhileRevalidating(cached.metadata, for: request) {
            instrumentation.record(.diskHit)
            return .staleWhileRevalidate(cached, fromDisk)
        }
        return .stale(cached, fromDisk)
    }

    /// Whether a stored response may answer `request` (RFC 9111 4.1): the request headers it
    /// varies on must carry the values they had when it was stored.
    static func varyMatches(_ metadata: CachedResponseMetadata, _ request: ImageRequest) -> Bool {
        metadata.vary.isEmpty || metadata.matches(requestHeaders: sentHeaders(for: request))
    }

    /// The request's header fields as the pipeline sends them (with its fixed `Accept`).
    static func sentHeaders(for request: ImageRequest) -> HTTPHeaders {
        HTTPHeaders(HTTPRequestDefaults.headers(applyingDefaultsTo: request.urlRequest.allHTTPHeaderFields ?? [:]))
    }

    /// The bytes for `request`: `lookup` (or a new disk lookup), then the network as needed.
    func fetch(_ request: ImageRequest, url: URL, context: Context, lookup: Lookup? = nil) async throws -> ImageDataResponse {
        trace?.mark(.dataJobStarted)
        switch try lookup ?? lookUp(request, url: url) {
        case .hit(let response):
            return response
        case .miss:
            // A staged background download for it being adopted, or adopted since `lookup`.
            if let adoption, await adoption.waitIfStaged(request) || adoption.takeAdopted(request.cacheKey) {
                return try await fetch(request, url: url, context: context)
            }
            return try await download(request, url: url, revalidating: nil, context: context)
        case .stale(let entry, let fromDisk), .staleWhileRevalidate(let entry, let fromDisk):
            // A staged background download may refresh it without the network.
            if let adoption, await adoption.waitIfStaged(request) {
                return try await fetch(request, url: url, context: context)
            }
            do {
                return try await download(request, url: url, revalidating: (entry, fromDisk), context: context)
            } catch let error as ImagePipeline.Error where freshness.mayServeStale(entry.metadata, after: error) {
                instrumentation.record(.diskHit)
                instrumentation.record(.servedStale(url: url, error: error))
                var stale = fromDisk
                stale.staleness = Staleness(error: error)
                return stale
            }
        }
    }

    /// Whether the disk cache keeps a fresh entry for `request` that it may serve (a background
    /// prefetch sends nothing for it, and marks it used, as a foreground prefetch's disk hit
    /// does, so that the downloads it adopts do not evict it). Counts nothing.
    func keepsFreshEntry(for request: ImageRequest) -> Bool {
        // The entry's header alone: a prefetch list of images on disk reads none of their bytes.
        guard let diskCache, request.options.isDisjoint(with: [.skipDiskCache, .reloadIgnoringLocalCacheData]),
              let metadata = diskCache.metadata(forKey: request.cacheKey), Self.varyMatches(metadata, request)
        else { return false }
        guard freshness.isFresh(metadata, for: request) else { return false }
        diskCache.touch(forKey: request.cacheKey)
        return true
    }

    /// Staged background downloads being adopted into the disk cache (``BackgroundDownloads``);
    /// `nil` without a background session or a disk cache.
    let adoption: BackgroundAdoption?

    /// The pipeline's request time for a new request (a background download's ticket).
    var now: Date { clock.now }

    private func cachedEntry(for request: ImageRequest) -> DiskCache.Entry? {
        guard let diskCache, request.options.isDisjoint(with: [.skipDiskCache, .reloadIgnoringLocalCacheData]) else {
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
        let info = try validator.validate(data, url: url, contentType: nil, expectedLength: nil, transfer: .complete)
        return ImageDataResponse(data: data, info: info, source: .disk, bytesDownloaded: 0)
    }

    // MARK: Network

    /// Downloads `url`, retrying transient failures as the retry policy allows. A failure the
    /// server gave is remembered for a while (``FailureCachePolicy``) and answered
    /// without asking again, unless the request insists.
    private func download(
        _ request: ImageRequest,
        url: URL,
        revalidating cached: (entry: DiskCache.Entry, response: ImageDataResponse)?,
        context: Context
    ) async throws -> ImageDataResponse {
        let key = request.cacheKey
        let insists = !request.options.isDisjoint(with: [.skipFailureCache, .reloadIgnoringLocalCacheData, .reloadRevalidatingCacheData])
        if !insists, let error = failures.error(forKey: key) {
            throw error
        }
        // The body bytes this job's subscribers were handed, across its attempts, and the image's
        // size read from them.
        let reportedBytes = Locked(0)
        let sizeReader = ImageSizeReader()
        do {
            let response = try await retryPolicy.run {
                try await downloadOnce(request, url: url, revalidating: cached, reportedBytes: reportedBytes, sizeReader: sizeReader, context: context)
            }
            failures.forget(key)
            return response
        } catch let failure as DownloadFailure {
            failures.remember(failure, forKey: key)
            throw failure.error
        }
    }

    /// The redirects a response came through, as hops that limit what is stored under the
    /// requested URL.
    private static func redirectHops(of response: Downloader.Response) -> [RedirectHop] {
        response.redirects.map {
            RedirectHop(statusCode: $0.statusCode, headers: HTTPHeaders($0), requestTime: response.requestTime, responseTime: response.responseTime)
        }
    }

    /// Forgets a remembered failure of `key`.
    func forgetFailure(forKey key: String) {
        failures.forget(key)
    }

    /// The bytes of downloads that stopped early, kept to be resumed.
    var partialDownloads: PartialDownloadStore { downloader.partials }

    /// Forgets the bytes kept to resume the download of `key` (every download's with `nil`).
    func forgetPartialDownload(forKey key: String?) {
        if let key {
            downloader.partials.remove(forKey: key)
        } else {
            downloader.partials.removeAll()
        }
    }

    /// Downloads `url` once, conditionally when a cached entry with validators is being
    /// revalidated. A failed status throws a ``DownloadFailure`` carrying its `Retry-After`.
    private func downloadOnce(
        _ request: ImageRequest,
        url: URL,
        revalidating cached: (entry: DiskCache.Entry, response: ImageDataResponse)?,
        reportedBytes: Locked<Int>,
        sizeReader: ImageSizeReader,
        context: Context
    ) async throws -> ImageDataResponse {
        var urlRequest = request.urlRequest
        if urlRequest.value(forHTTPHeaderField: HTTPRequestDefaults.acceptFieldName) == nil {
            urlRequest.setValue(HTTPRequestDefaults.accept, forHTTPHeaderField: HTTPRequestDefaults.acceptFieldName)
        }
        // A forced revalidation tells caches on the way (a CDN) to ask the origin too, as a
        // browser's reload does, unless the request states its own directives.
        if request.options.contains(.reloadRevalidatingCacheData), urlRequest.value(forHTTPHeaderField: "Cache-Control") == nil {
            urlRequest.setValue("max-age=0", forHTTPHeaderField: "Cache-Control")
        }
        let revalidated = cached.flatMap { $0.entry.metadata.hasValidators ? $0 : nil }
        if let revalidated {
            for (field, value) in revalidated.entry.metadata.conditionalHeaders() {
                urlRequest.setValue(value, forHTTPHeaderField: field)
            }
        }

        // A reload that ignores cached data does not resume kept bytes either (it keeps its own).
        let response = try await downloader.send(
            urlRequest, url: url, isConditional: revalidated != nil, resumeKey: request.cacheKey,
            mayResume: !request.options.contains(.reloadIgnoringLocalCacheData), reportedBytes: reportedBytes, sizeReader: sizeReader,
            context: context
        )

        if let revalidated, response.statusCode == 304 {
            let sent = Self.sentHeaders(for: request)
            var confirmed = revalidated.response
            var outcome = revalidated.entry.metadata.applyingNotModified(
                response.headers, requestHeaders: sent, requestTime: response.requestTime, responseTime: response.responseTime
            )
            // A 304 that came through redirects is limited by them like a 200 (a temporary
            // redirect without freshness keeps the entry stale), and removes it if a hop forbids
            // storing.
            if case .updated(let metadata) = outcome {
                outcome = metadata.restricted(
                    byRedirects: Self.redirectHops(of: response), requestHeaders: sent, heuristic: freshness.heuristic
                ).map(CachedResponseMetadata.NotModifiedOutcome.updated) ?? .remove
            }
            switch outcome {
            case .updated(let metadata):
                confirmed.metadata = metadata
                confirmed.httpResponse = metadata.response
                if diskCache?.updateMetadata(metadata, ifStillStored: revalidated.entry) ?? false {
                    confirmed.memoryLifetime = freshness.memoryLifetime(metadata)
                } else {
                    // The entry changed while the 304 was on its way (a reload stored newer
                    // bytes): its metadata is left alone, and the bytes this 304 confirmed
                    // are served to this request but not kept in memory over newer ones.
                    confirmed.memoryLifetime = .doNotKeep
                }
            case .remove:
                diskCache?.removeEntry(forKey: request.cacheKey)
                confirmed.memoryLifetime = .doNotKeep
                confirmed.httpResponse = revalidated.entry.metadata.response?.updated(byNotModified: response.headers.fields)
            case .refetch:
                // The 304 names other bytes than the stored ones (RFC 9111 4.3.4): ask again,
                // unconditionally, and neither serve nor update the stored entry.
                return try await downloadOnce(request, url: url, revalidating: nil, reportedBytes: reportedBytes, sizeReader: sizeReader, context: context)
            }
            instrumentation.record(.diskHit)
            instrumentation.record(.revalidated(url: url, notModified: true))
            confirmed.source = .revalidated
            return confirmed
        }
        return try accepted(response, for: request, url: url, isRevalidation: revalidated != nil)
    }

    /// What a response (a download's, or a background download's adopted on relaunch) gives
    /// `request`: a failed status throws a ``DownloadFailure`` carrying its `Retry-After`; a 2xx
    /// body is validated (``ResponseValidator``: length against `Content-Length`, format,
    /// completeness, pixel limit), its metadata built, limited by its redirects, and stored as the
    /// ``DiskStorePolicy`` decides.
    ///
    /// - Parameter counts: Whether to record a disk miss (and a changed revalidation): a
    ///   download's; an adoption is not a request.
    func accepted(
        _ response: Downloader.Response, for request: ImageRequest, url: URL, isRevalidation: Bool, counts: Bool = true
    ) throws -> ImageDataResponse {
        if let status = response.statusCode, !(200..<300).contains(status) {
            // An HTTP-date `Retry-After` counts from the response's own `Date` (the server's
            // clock), so a device clock that is off does not shorten or stretch the wait.
            let serverNow = response.headers["Date"].flatMap { HTTPDate.parse($0) } ?? clock.now
            let retryAfter = response.httpResponse?.value(forHTTPHeaderField: "Retry-After").flatMap {
                ImagePipeline.RetryPolicy.seconds(fromRetryAfter: $0, now: serverNow)
            }
            throw DownloadFailure(.badStatusCode(url: url, statusCode: status), retryAfter: retryAfter, response: response)
        }
        let headers = response.headers
        let info = try validator.validate(
            response.data, url: url, contentType: headers["Content-Type"], expectedLength: response.expectedLength,
            transfer: ResponseValidator.Transfer(response.response, received: response.data.count)
        )

        if counts {
            instrumentation.record(.diskMiss)
            if isRevalidation {
                instrumentation.record(.revalidated(url: url, notModified: false))
            }
        }
        // Stored under the requested URL: every redirect on the way limits what may be reused
        // (a temporary redirect without freshness makes the entry stale at once).
        let sent = Self.sentHeaders(for: request)
        let httpResponse = CachedHTTPResponse(response.response)
        var metadata = CachedResponseMetadata(
            headers: headers, statusCode: response.statusCode ?? 200, requestHeaders: sent,
            requestTime: response.requestTime, responseTime: response.responseTime
        )?.restricted(byRedirects: Self.redirectHops(of: response), requestHeaders: sent, heuristic: freshness.heuristic)
        metadata?.response = httpResponse
        // A request that says `no-store` keeps nothing of the response (RFC 9111 5.2.1.5).
        if request.cacheDirectives.noStore { metadata = nil }
        store(response.data, metadata: metadata, for: request)
        return ImageDataResponse(
            data: response.data, info: info, source: .network, bytesDownloaded: response.data.count - response.resumedFrom,
            memoryLifetime: freshness.memoryLifetime(metadata),
            metadata: metadata,
            httpResponse: httpResponse
        )
    }

    // MARK: Storage

    private func store(_ data: Data, metadata: CachedResponseMetadata?, for request: ImageRequest) {
        guard let diskCache, !request.cacheDirectives.noStore else { return }
        switch storePolicy.decision(for: request, metadata: metadata) {
        case .store(let metadata):
            // Pinned within the pinned budget, else unpinned (no pinned image makes room); a
            // pinned image's new version keeps its pin within the budget too. Never waits.
            diskCache.store(
                data, metadata: metadata, forKey: request.cacheKey,
                pinnedLimit: pinnedSizeLimit, pinning: request.options.contains(.pinOnDisk)
            )
        case .remove:
            diskCache.removeEntry(forKey: request.cacheKey)
        case .skip:
            break
        }
    }
}

/// Identifies a data job: requests with the same cache key and cache options share a download.
struct DataTaskKey: Hashable, Sendable {
    var cacheKey: String
    var options: ImageRequest.Options
    /// The request's own cache directives: a request that accepts less (or more) of the cache
    /// never joins another's answer.
    var directives: RequestCacheDirectives

    init(_ request: ImageRequest) {
        cacheKey = request.cacheKey
        directives = request.cacheDirectives
        // Memory, preview and decoding options do not change what the data job does.
        options = request.options.subtracting([.skipMemoryCache, .showProgressivePreviews, .skipProgressivePreviews, .decodeFullResolution, .decodeToHDR])
    }
}
