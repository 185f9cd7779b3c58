import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one request through the bounded, priority-ordered download queue and the
/// ``DataLoading`` loader, reporting what went over the network.
final class Downloader: Sendable {
    /// A response as received, with the times that bound it (for RFC 9111 age calculation).
    struct Response: Sendable {
        var data: Data
        var response: URLResponse
        var requestTime: Date
        var responseTime: Date
        /// The redirect responses followed before `response`, first hop first (empty when
        /// there was none or the loader does not report them).
        var redirects: [HTTPURLResponse] = []

        var httpResponse: HTTPURLResponse? { response as? HTTPURLResponse }
        var statusCode: Int? { httpResponse?.statusCode }
        var headers: HTTPHeaders { httpResponse.map(HTTPHeaders.init) ?? HTTPHeaders([:]) }

        /// The announced length of an unencoded body, if any.
        var expectedLength: Int? {
            guard httpResponse?.value(forHTTPHeaderField: "Content-Encoding") == nil,
                  response.expectedContentLength > 0 else { return nil }
            return Int(exactly: response.expectedContentLength) // A 32-bit `Int` (watchOS) may not hold it.
        }
    }

    private let queue: WorkQueue

    /// Downloads waiting for a slot.
    var queuedCount: Int { queue.pendingCount }
    private let loader: any DataLoading
    private let clock: any CacheClock
    private let instrumentation: PipelineInstrumentation
    private let limits: DataLoadLimits
    /// ``ImagePipeline/Configuration/requestModifier``: applied to every request sent.
    private let requestModifier: (@Sendable (URLRequest) async throws -> URLRequest)?

    init(
        maxConcurrentDownloads: Int,
        loader: any DataLoading,
        clock: any CacheClock,
        instrumentation: PipelineInstrumentation,
        limits: DataLoadLimits = DataLoadLimits(),
        requestModifier: (@Sendable (URLRequest) async throws -> URLRequest)? = nil
    ) {
        self.limits = limits
        self.requestModifier = requestModifier
        self.queue = WorkQueue(maxConcurrentCount: maxConcurrentDownloads)
        self.loader = loader
        self.clock = clock
        self.instrumentation = instrumentation
    }

    /// Waits for a download slot (at the job's current priority, following its changes), applies
    /// the request modifier, then loads, passing later priority changes on to the running load
    /// (``DataLoadPriority``). Transport failures become ``ImagePipeline/Error/transport(url:underlying:)``,
    /// a throwing modifier ``ImagePipeline/Error/requestModifierFailed(url:underlying:)`` (nothing
    /// sent); cancellation throws `CancellationError`.
    func send(
        _ urlRequest: URLRequest,
        url: URL,
        isConditional: Bool,
        context: TaskCoalescer<DataTaskKey, ImageDataResponse>.JobContext
    ) async throws -> Response {
        let priority = context.priority
        let ticket = queue.enqueue(priority: priority)
        // The queue orders waiting downloads; the loader reprioritises the running one.
        let loadPriority = DataLoadPriority(priority)
        context.onPriorityChange(after: priority) { newPriority in
            ticket.setPriority(newPriority)
            loadPriority.update(newPriority)
        }
        return try await ticket.run {
            try Task.checkCancellation()
            let urlRequest = try await modified(urlRequest, url: url)
            instrumentation.record(.networkRequest(url: url, isConditional: isConditional))
            let requestTime = clock.now
            do {
                let loaded = try await loader.load(urlRequest, limits: limits, priority: loadPriority) { received, expected in
                    context.reportProgress(received, expected)
                }
                instrumentation.record(.bytesReceived(loaded.data.count))
                return Response(
                    data: loaded.data,
                    response: loaded.response,
                    requestTime: requestTime,
                    responseTime: clock.now,
                    redirects: loaded.redirects
                )
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

    /// `urlRequest` as the request modifier returns it (unchanged without one). Runs in the
    /// download slot, just before sending, so a token it adds is as fresh as it can be.
    private func modified(_ urlRequest: URLRequest, url: URL) async throws -> URLRequest {
        guard let requestModifier else { return urlRequest }
        do {
            return try await requestModifier(urlRequest)
        } catch {
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            throw ImagePipeline.Error.requestModifierFailed(url: url, underlying: error)
        }
    }
}
