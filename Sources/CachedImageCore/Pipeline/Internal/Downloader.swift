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
    ///
    /// A download running below ``WorkQueue/preemptingPriority`` (every view that wanted it left
    /// the screen, or a prefetch) gives its slot to a visible request that waits for one: its
    /// transfer stops and it waits for a slot again at its priority, starting over when it gets
    /// one (the image jobs are told: ``JobUpdate/restarted``). Where partial bodies are kept
    /// for resumption, this is where a stopped download hands its bytes over.
    func send(
        _ urlRequest: URLRequest,
        url: URL,
        isConditional: Bool,
        context: TaskCoalescer<DataTaskKey, ImageDataResponse>.JobContext
    ) async throws -> Response {
        let priority = context.priority
        let ticket = Locked(queue.enqueue(priority: priority))
        // The queue orders waiting downloads; the loader reprioritises the running one.
        let loadPriority = DataLoadPriority(priority)
        context.onPriorityChange(after: priority) { newPriority in
            ticket.withLock { $0 }.setPriority(newPriority)
            loadPriority.update(newPriority)
        }
        while true {
            let preemption = Preemption()
            do {
                return try await ticket.withLock { $0 }.run(preemption: preemption) {
                    try await load(urlRequest, url: url, isConditional: isConditional, priority: loadPriority, context: context, preemption: preemption)
                }
            } catch is Preempted {
                context.report(.restarted)
                ticket.withLock { $0 = queue.enqueue(priority: context.priority) }
            }
        }
    }

    /// Thrown when the queue took the slot back from a running download.
    private struct Preempted: Error {}

    private func load(
        _ urlRequest: URLRequest,
        url: URL,
        isConditional: Bool,
        priority loadPriority: DataLoadPriority,
        context: TaskCoalescer<DataTaskKey, ImageDataResponse>.JobContext,
        preemption: Preemption
    ) async throws -> Response {
        try Task.checkCancellation()
        let urlRequest = try await modified(urlRequest, url: url)
        instrumentation.record(.networkRequest(url: url, isConditional: isConditional))
        let requestTime = clock.now
        let (loader, limits) = (loader, limits)
        // The transfer runs in a task of its own, so that a preemption stops it without
        // cancelling the job.
        let transfer = Task {
            try await loader.load(
                urlRequest, limits: limits, priority: loadPriority,
                progress: { received, expected in context.reportProgress(received, expected) },
                received: { chunk in context.report(.bytes(chunk)) }
            )
        }
        preemption.onPreempt { transfer.cancel() }
        do {
            let loaded = try await withTaskCancellationHandler {
                try await transfer.value
            } onCancel: {
                transfer.cancel()
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
            if preemption.isPreempted, !Task.isCancelled {
                throw Preempted()
            }
            if Task.isCancelled || error is CancellationError || (error as? URLError)?.code == .cancelled {
                throw CancellationError()
            }
            if let error = error as? ImagePipeline.Error {
                throw error
            }
            throw ImagePipeline.Error.transport(url: url, underlying: error)
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
