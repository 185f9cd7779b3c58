import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A pipeline's prefetches that outlive the app (``ImagePrefetcher/startPrefetching(with:inBackground:)``):
/// what goes to the background session, and the adoption of what it downloaded.
///
/// - **Sending**: a request goes to the session only when the disk cache has no fresh entry for
///   it, it is an `http`/`https` request that may be stored (not one carrying `Authorization`
///   unless authorized responses are stored), and the session is not already
///   downloading its key; with the pipeline's `Accept` and request modifier, and a ticket
///   (``BackgroundDownloadRecord/Ticket``) naming its cache key.
/// - **Staging**: the session's delegate stages each finished download
///   (``BackgroundDownloadInbox``, ``BackgroundDownloadStaging``), with no pipeline needed.
/// - **Adoption**: when the pipeline opens its disk cache, after each download staged while it
///   runs, and at ``adoptStagedDownloads()``, each staged download is validated as a download
///   (``DataFetcher/accepted(_:for:url:isRevalidation:counts:)``: status, `Content-Length`
///   against the bytes, the container's completeness, the pixel limit, the byte limit) and
///   stored through the disk cache's write path with its HTTP metadata, unless the cache holds a
///   newer response; accepted or not, it is deleted from the staging folder. A miss waits for an
///   adoption under way when it has an item staged for the key (``BackgroundAdoption``).
final class BackgroundDownloads: Sendable {
    let identifier: String
    let inbox: BackgroundDownloadInbox
    let session: any BackgroundDownloadSession
    private let fetcher: DataFetcher
    private let adoption: BackgroundAdoption
    private let resolver: RequestResolver
    private let diskCache: DiskCache
    private let maximumResponseBytes: Int
    private let storesAuthorizedResponses: Bool
    private let requestModifier: (@Sendable (URLRequest) async throws -> URLRequest)?
    private let observer = Locked<UUID?>(nil)
    /// The caches' last emptying (``removeAll()``).
    private let cleared = Locked(Clearing())

    private struct Clearing {
        /// When: downloads handed over before it are not adopted, wherever they are.
        var at: Date?
        /// How many: an adoption that stored across one takes its entry back.
        var count = 0
    }

    /// `nil` without a background session configured or a disk cache, or when the identifier is
    /// taken in this process for another directory.
    init?(configuration: ImagePipeline.Configuration, diskCache: DiskCache?, jobs: ImageJobs) {
        guard let setup = configuration.backgroundSession, let diskCache, let adoption = jobs.fetcher.adoption else { return nil }
        let staging = BackgroundDownloadStaging(cacheDirectoryPath: diskCache.directoryPath)
        guard let registration = BackgroundDownloadInbox.registered(setup, staging: staging, clock: configuration.clock) else { return nil }
        identifier = setup.identifier
        inbox = registration.inbox
        session = registration.session
        fetcher = jobs.fetcher
        self.adoption = adoption
        resolver = jobs.resolver
        self.diskCache = diskCache
        maximumResponseBytes = configuration.maximumResponseBytes
        storesAuthorizedResponses = configuration.storesAuthorizedResponsesOnDisk
        requestModifier = configuration.requestModifier
        let token = inbox.addStagedObserver { [weak self] in self?.adoptStagedDownloads() }
        observer.withLock { $0 = token }
        // One `stat`: a launch where nothing was ever staged starts no task.
        if DiskCacheFileIO.directoryStamp(atPath: staging.folderPath) != nil {
            adoptStagedDownloads()
        }
    }

    deinit {
        if let token = observer.withLock({ $0 }) { inbox.removeStagedObserver(token) }
    }

    // MARK: Sending

    /// Hands `requests` to the background session, except those it need not download: see the
    /// type's documentation.
    ///
    /// - Returns: The cache keys handed over.
    func prefetch(_ requests: [ImageRequest]) async -> [String] {
        let running = Set(await session.runningDownloads().compactMap { try? BackgroundDownloadRecord.Ticket(decoding: $0).cacheKey })
        var sent: [String] = []
        var keys = running
        for request in requests {
            guard let (request, url) = sendable(request), keys.insert(request.cacheKey).inserted else { continue }
            var urlRequest = request.urlRequest
            urlRequest.url = url
            if urlRequest.value(forHTTPHeaderField: HTTPRequestDefaults.acceptFieldName) == nil {
                urlRequest.setValue(HTTPRequestDefaults.accept, forHTTPHeaderField: HTTPRequestDefaults.acceptFieldName)
            }
            // The ticket and the staged record are kept by the system and in the cache's
            // directory: never a credential.
            var headers = urlRequest.allHTTPHeaderFields ?? [:]
            for name in headers.keys where name.caseInsensitiveCompare("Authorization") == .orderedSame {
                headers[name] = nil
            }
            let ticket = BackgroundDownloadRecord.Ticket(
                cacheKey: request.cacheKey, requestTime: fetcher.now, headers: headers, options: request.options
            )
            if let requestModifier {
                guard let modified = try? await requestModifier(urlRequest) else { continue }
                urlRequest = modified
            }
            session.startDownload(urlRequest, description: ticket.encoded)
            sent.append(request.cacheKey)
        }
        return sent
    }

    /// `request` resolved, when the session should download it.
    func sendable(_ request: ImageRequest) -> (ImageRequest, URL)? {
        guard let (request, url) = try? resolver.resolve(request), !request.readsStoredImage,
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              request.urlRequest.httpMethod ?? "GET" == "GET",
              request.options.isDisjoint(with: [.skipDiskCache, .returnCacheDataDontLoad]),
              !request.cacheDirectives.noStore, !request.cacheDirectives.onlyIfCached,
              // Kept off disk (``DiskStorePolicy``): downloading it would store nothing.
              storesAuthorizedResponses || request.urlRequest.value(forHTTPHeaderField: "Authorization") == nil
        else { return nil }
        return fetcher.keepsFreshEntry(for: request) ? nil : (request, url)
    }

    /// The resolved cache keys of `requests`.
    func cacheKeys(of requests: [ImageRequest]) -> Set<String> {
        Set(requests.compactMap { try? resolver.resolve($0).0.cacheKey })
    }

    /// Cancels the session's downloads of `keys`.
    func cancel(keys: Set<String>) async {
        let descriptions = await session.runningDownloads().filter { description in
            (try? BackgroundDownloadRecord.Ticket(decoding: description)).map { keys.contains($0.cacheKey) } ?? false
        }
        session.cancelDownloads(withDescriptions: Set(descriptions))
    }

    /// The cache was emptied: cancels every download of the session and deletes what is staged,
    /// in a task (the caller is usually the main thread). Whatever was handed over before is
    /// never adopted: a download the session finishes before it sees the cancel, an item a
    /// sweep under way already read (stored across the emptying, it is taken back out).
    func removeAll() {
        cleared.withLock { cleared in
            cleared.at = fetcher.now
            cleared.count += 1
        }
        adoption.forgetAdopted()
        session.cancelAllDownloads()
        let staging = inbox.staging
        Task.detached(priority: .utility) { staging.removeAll() }
    }

    /// Whether a download handed over at `requestTime` was cleared by an emptying of the caches.
    private func isCleared(handedOverAt requestTime: Date) -> Bool {
        cleared.withLock { $0.at.map { requestTime < $0 } ?? false }
    }

    // MARK: Adoption

    /// Adopts what is staged, in a task (one at a time; a call during a sweep runs it once more).
    /// A miss waits for its own item (``BackgroundAdoption``).
    @discardableResult
    func adoptStagedDownloads() -> Task<Void, Never> {
        adoption.start { [weak self] in self?.sweep() }
    }

    /// One pass over the staging folder: leftovers deleted, staged downloads adopted or refused.
    private func sweep() {
        let listing = inbox.staging.list()
        adoption.listed(listing.items.map(\.entryName))
        for path in listing.leftovers { try? DiskCacheFileIO.removeFile(atPath: path) }
        for item in listing.items {
            adoption.finished(item.entryName, adopted: (try? adopt(item)) ?? nil)
        }
    }

    /// Validates one staged download as a download and stores it. Its record is read and decoded
    /// first, then the entry on disk compared, then the bytes read once; the item is deleted
    /// (accepted or not) before the bytes are judged: a process that dies before they are stored
    /// loses a prefetch, never serves one unchecked. A file the file system refuses to read
    /// (the device locked under data protection, no descriptors left) keeps the item for the next
    /// sweep.
    ///
    /// - Returns: The key it was stored under; `nil` when the cache holds a newer response.
    /// - Throws: Why it was refused: ``BackgroundDownloadRecord/FormatError`` for a bad record,
    ///   ``ImagePipeline/Error`` as a download would fail (deleted); the file system's
    ///   `POSIXError` when a file could not be read (kept).
    func adopt(_ item: BackgroundDownloadStaging.Item) throws -> String? {
        let clearings = cleared.withLock(\.count)
        let record: BackgroundDownloadRecord
        switch BackgroundDownloadStaging.read(atPath: item.recordPath, maximumSize: 1 << 20) {
        case .bytes(let bytes):
            do {
                record = try BackgroundDownloadRecord(decoding: bytes)
            } catch {
                inbox.staging.remove(item)
                throw error
            }
        case .tooLarge, .notAFile:
            inbox.staging.remove(item)
            throw BackgroundDownloadRecord.FormatError.malformed("the record is not a small regular file")
        case .failed(let error):
            throw error
        }
        guard let response = record.response else {
            inbox.staging.remove(item)
            throw BackgroundDownloadRecord.FormatError.malformed("no response")
        }
        if isCleared(handedOverAt: record.ticket.requestTime) {
            inbox.staging.remove(item)
            return nil
        }
        // A newer response stored since (the app downloaded it in the foreground) stays.
        if diskCache.containsEntry(forKey: record.ticket.cacheKey),
           let stored = diskCache.entry(forKey: record.ticket.cacheKey), stored.metadata.storedAt >= record.responseTime {
            inbox.staging.remove(item)
            return nil
        }
        let data: Data
        switch BackgroundDownloadStaging.read(atPath: item.dataPath, maximumSize: maximumResponseBytes) {
        case .bytes(let bytes):
            data = bytes
        case .tooLarge:
            inbox.staging.remove(item)
            throw ImagePipeline.Error.responseTooLarge(url: record.url, limit: maximumResponseBytes)
        case .notAFile:
            inbox.staging.remove(item)
            throw BackgroundDownloadRecord.FormatError.malformed("the download is not a regular file")
        case .failed(let error):
            throw error
        }
        inbox.staging.remove(item)
        let downloaded = Downloader.Response(
            data: data, response: response, requestTime: record.requestTime, responseTime: record.responseTime,
            redirects: record.redirects
        )
        _ = try fetcher.accepted(downloaded, for: record.request, url: record.url, isRevalidation: false, counts: false)
        if cleared.withLock(\.count) != clearings {
            // The caches were emptied while it was judged: it does not come back.
            diskCache.removeEntry(forKey: record.ticket.cacheKey)
            return nil
        }
        return record.ticket.cacheKey
    }
}
