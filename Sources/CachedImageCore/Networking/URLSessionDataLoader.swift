import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``DataLoading`` implementation, backed by its own `URLSession`.
///
/// The loader never caches: its session has no `URLCache` and ignores local cache data, because
/// the pipeline's memory and disk caches are the only caches (bytes are never stored twice).
/// Progress is reported as data arrives, and cancelling the calling task cancels the underlying
/// `URLSessionTask` and throws `CancellationError` at once.
///
/// ```swift
/// let loader = URLSessionDataLoader()
/// let (data, response) = try await loader.loadData(for: URLRequest(url: url)) { received, expected in
///     print("\(received) of \(expected.map(String.init) ?? "?") bytes")
/// }
/// ```
///
/// Non-2xx responses are returned, not thrown; transport failures throw the session's `URLError`.
public final class URLSessionDataLoader: StreamingDataLoading {
    /// The session used for every request, made on first use: creating a `URLSession` costs
    /// about 100 µs, which a pipeline that answers from its caches (a relaunch showing what is on
    /// disk) never needs to pay. It is invalidated when the loader is released.
    var session: URLSession {
        lazySession.withLock { session in
            if let session { return session }
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            queue.name = "CachedImage.URLSessionDataLoader"
            let configuration = sessionConfiguration ?? Self.ownCopy(of: Self.defaultConfiguration)
            let made = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
            session = made
            return made
        }
    }

    private let lazySession = Locked<URLSession?>(nil)
    /// `nil` for ``defaultConfiguration``, made with the session.
    private let sessionConfiguration: URLSessionConfiguration?
    private let delegate: DataLoaderSessionDelegate

    /// A configuration suited to image downloads: no `URLCache`, local cache data ignored,
    /// a 30 s request (idle) timeout, a 120 s resource timeout and up to 12 connections per host (the pipeline's
    /// default ``ImagePipeline/Configuration/maximumConcurrentDownloads``).
    ///
    /// Each access returns a new instance, so you can adjust it before passing it to
    /// ``init(configuration:)``:
    ///
    /// ```swift
    /// let configuration = URLSessionDataLoader.defaultConfiguration
    /// configuration.httpAdditionalHeaders = ["User-Agent": "MyApp/1.0"]
    /// let loader = URLSessionDataLoader(configuration: configuration)
    /// ```
    public static var defaultConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 30
        configuration.timeoutIntervalForResource = 120
        configuration.httpMaximumConnectionsPerHost = 12
        return configuration
    }

    /// Creates a loader with its own session.
    ///
    /// - Parameter configuration: The session configuration. The loader works on a copy and
    ///   always sets `urlCache` to `nil` and `requestCachePolicy` to
    ///   `.reloadIgnoringLocalCacheData` on it, whatever the configuration passed says.
    public init(configuration: URLSessionConfiguration) {
        self.delegate = DataLoaderSessionDelegate()
        self.sessionConfiguration = Self.ownCopy(of: configuration)
    }

    /// Creates a loader with ``defaultConfiguration``. The configuration, like the session, is
    /// made on first use.
    public init() {
        self.delegate = DataLoaderSessionDelegate()
        self.sessionConfiguration = nil
    }

    private static func ownCopy(of configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        let own = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        own.urlCache = nil
        own.requestCachePolicy = .reloadIgnoringLocalCacheData
        return own
    }

    deinit {
        lazySession.withLock { $0 }?.finishTasksAndInvalidate()
    }

    /// Loads the body for `request`, reporting progress as bytes arrive.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled, otherwise the session's
    ///   error (usually a `URLError`) when the transfer fails.
    public func loadData(
        for request: URLRequest,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void
    ) async throws -> (Data, URLResponse) {
        let result = try await load(request, limits: DataLoadLimits(), progress: progress)
        return (result.data, result.response)
    }

    /// Loads the body for `request`, recording every redirect hop and enforcing `limits` while
    /// the body streams: a `Content-Length` over the byte cap is refused before any body byte,
    /// a body outgrowing it is cancelled at once, and an image whose header declares too many
    /// pixels is cancelled as soon as the header has arrived.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled; the typed
    ///   ``ImagePipeline/Error`` for a limit, a redirect loop or too many redirects; otherwise the
    ///   session's error (usually a `URLError`) when the transfer fails.
    package func load(
        _ request: URLRequest,
        limits: DataLoadLimits,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void
    ) async throws -> DataLoadResponse {
        try await load(request, limits: limits, priority: DataLoadPriority(), progress: progress)
    }

    /// Loads like ``load(_:limits:progress:)``, with the `URLSessionTask`'s priority following
    /// `priority` from before the task starts until it ends (``ImageRequest/Priority/urlSessionTaskPriority``).
    ///
    /// - Throws: The same errors as ``load(_:limits:progress:)``.
    package func load(
        _ request: URLRequest,
        limits: DataLoadLimits,
        priority: DataLoadPriority,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void
    ) async throws -> DataLoadResponse {
        try await load(request, limits: limits, priority: priority, progress: progress, received: { _ in })
    }

    /// Loads like ``load(_:limits:priority:progress:)``, handing each chunk of the body to
    /// `received` as the session delivers it.
    ///
    /// - Throws: The same errors as ``load(_:limits:progress:)``.
    package func load(
        _ request: URLRequest,
        limits: DataLoadLimits,
        priority: DataLoadPriority,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void,
        received: @escaping @Sendable (_ chunk: Data) -> Void
    ) async throws -> DataLoadResponse {
        try await load(
            request, limits: limits, priority: priority, progress: progress, received: received,
            head: { _ in }, interrupted: { _ in }
        )
    }

    /// Loads like ``load(_:limits:priority:progress:received:)``, calling `head` with the final
    /// response before its body and, when the calling task is cancelled or the connection fails
    /// after the head, `interrupted` with the body bytes received, before throwing.
    ///
    /// - Throws: The same errors as ``load(_:limits:progress:)``.
    package func load(
        _ request: URLRequest,
        limits: DataLoadLimits,
        priority: DataLoadPriority,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void,
        received: @escaping @Sendable (_ chunk: Data) -> Void,
        head: @escaping @Sendable (_ response: URLResponse) -> Void,
        interrupted: @escaping @Sendable (_ received: Data) -> Void
    ) async throws -> DataLoadResponse {
        let operation = DataLoadOperation(
            url: request.url ?? URL(fileURLWithPath: "/"), limits: limits, progress: progress, received: received,
            head: head, interrupted: interrupted
        )
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request)
                guard operation.attach(task: task, continuation: continuation) else {
                    // The calling task was cancelled before the request started.
                    task.cancel()
                    continuation.resume(throwing: CancellationError())
                    return
                }
                delegate.register(operation, for: task.taskIdentifier)
                priority.observe { operation.setPriority($0) }
                task.resume()
            }
        } onCancel: {
            operation.cancel()
        }
    }
}
