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
        /// How many of `data`'s first bytes were kept from an earlier, interrupted transfer
        /// and not downloaded by this request (``ResumableTransfer``).
        var resumedFrom = 0

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
    /// How many downloads the link needs at once (``LinkScheduler``, ``LinkGauge``).
    let link: LinkScheduler

    /// Downloads waiting for a slot.
    var queuedCount: Int { queue.pendingCount }
    /// Downloads running.
    var runningCount: Int { queue.activeCount }
    private let loader: any StreamingDataLoading
    private let clock: any CacheClock
    private let instrumentation: PipelineInstrumentation
    private let limits: DataLoadLimits
    /// ``ImagePipeline/Configuration/requestModifier``: applied to every request sent.
    private let requestModifier: (@Sendable (URLRequest) async throws -> URLRequest)?
    /// The bytes of downloads that stopped early (``ImagePipeline/Configuration/resumableDownloadBudget``).
    let partials: PartialDownloadStore

    init(
        maximumConcurrentDownloads: Int,
        loader: any DataLoading,
        clock: any CacheClock,
        instrumentation: PipelineInstrumentation,
        limits: DataLoadLimits = DataLoadLimits(),
        requestModifier: (@Sendable (URLRequest) async throws -> URLRequest)? = nil,
        resumableDownloadBudget: Int = 0,
        linkClock: any UptimeClock = SystemUptimeClock(),
        adaptsToLink: Bool = true
    ) {
        self.partials = PartialDownloadStore(budget: resumableDownloadBudget)
        self.limits = limits
        self.requestModifier = requestModifier
        self.queue = WorkQueue(maxConcurrentCount: maximumConcurrentDownloads)
        self.link = LinkScheduler(
            queue: queue, maximum: maximumConcurrentDownloads, clock: linkClock, isEnabled: adaptsToLink,
            keepsStoppedBytes: resumableDownloadBudget > 0
        )
        self.loader = (loader as? any StreamingDataLoading) ?? WholeBodyDataLoader(base: loader)
        self.clock = clock
        self.instrumentation = instrumentation
    }

    /// Waits for a download slot (at the job's current priority, following its changes), applies
    /// the request modifier, then loads, passing later priority changes on to the running load
    /// (``DataLoadPriority``). Transport failures become ``ImagePipeline/Error/transport(url:underlying:)``,
    /// a throwing modifier ``ImagePipeline/Error/requestModifierFailed(url:underlying:)`` (nothing
    /// sent); cancellation throws `CancellationError`.
    ///
    /// With a `resumeKey`, a body that stops early keeps its bytes under that key when its response
    /// may be resumed, and a request with bytes kept (not `isConditional`, `mayResume`) asks only
    /// for the rest (``ResumableTransfer``); `reportedBytes` counts the body bytes the job's
    /// subscribers were handed, so that the kept ones are handed over once, and a body that
    /// starts over from its first byte (a retry the server did not resume) is announced
    /// (``JobUpdate/restarted``). `sizeReader` sees the body as the subscribers do and reports
    /// the image's size once its header arrived (``JobUpdate/imageSize(_:)``).
    ///
    /// A download running below ``WorkQueue/preemptingPriority`` (every view that wanted it left
    /// the screen, or a prefetch) gives its slot to a visible request that waits for one: its
    /// transfer stops (keeping its bytes where they may be resumed), the image jobs are told
    /// (``JobUpdate/restarted``: they drop what they received), and it waits for a slot again at
    /// its priority; when it gets one it asks for the rest, or starts over.
    ///
    /// On a link measured as the bottleneck, fewer downloads run at once (``LinkScheduler``): a
    /// running one that would hold the link beyond that steps aside the same way, and one that
    /// asks with validators counts only once a body arrives.
    func send(
        _ urlRequest: URLRequest,
        url: URL,
        isConditional: Bool,
        resumeKey: String? = nil,
        mayResume: Bool = true,
        reportedBytes: Locked<Int> = Locked(0),
        sizeReader: ImageSizeReader? = nil,
        context: TaskCoalescer<DataTaskKey, ImageDataResponse>.JobContext
    ) async throws -> Response {
        let priority = context.priority
        let ticket = Locked(queue.enqueue(priority: priority, counts: !isConditional))
        // A revalidation counts against the link's limit once it got a body (the image changed):
        // waiting again, it is a download like any other.
        var counts = !isConditional
        // The queue orders waiting downloads; the loader reprioritises the running one.
        let loadPriority = DataLoadPriority(priority)
        context.onPriorityChange(after: priority) { newPriority in
            ticket.withLock { $0 }.setPriority(newPriority)
            loadPriority.update(newPriority)
        }
        while true {
            let preemption = Preemption()
            do {
                let current = ticket.withLock { $0 }
                let countsBeforeBody = counts
                return try await current.run(preemption: preemption) {
                    var resumes = mayResume && !isConditional
                    while true {
                        let transfer = resumeKey.map { ResumableTransfer(store: partials, key: $0, url: url, mayResume: resumes) }
                        var sent = urlRequest
                        transfer?.prepare(&sent)
                        // What the link rule knows of it: whether it counts before a body (a
                        // revalidation that got one before does), and whether stopping it keeps
                        // its bytes (only an unconditional request with a key resumes).
                        let linkRole = LinkScheduler.Role(countsBeforeBody: countsBeforeBody, keepsBytes: resumeKey != nil && resumes)
                        if let response = try await load(
                            sent, url: url, isConditional: isConditional, linkRole: linkRole, ticket: current, priority: loadPriority,
                            transfer: transfer, body: BodyHandout(reportedBytes: reportedBytes, sizeReader: sizeReader),
                            context: context, preemption: preemption
                        ) {
                            return response
                        }
                        // The kept bytes were refused (a 416, a range that does not continue
                        // them): the whole body, in the same slot.
                        resumes = false
                    }
                }
            } catch is Preempted {
                // The subscribers drop what they received; a resumed body hands the kept bytes over again.
                if reportedBytes.withLock({ $0 }) > 0 { counts = true }
                reportedBytes.withLock { $0 = 0 }
                sizeReader?.restart()
                context.report(.restarted)
                // Back in line where it stood: a transfer that stepped aside or was preempted
                // keeps its place among the requests of its priority.
                ticket.withLock { [counts] in $0 = queue.enqueue(priority: context.priority, counts: counts, place: $0.place) }
            }
        }
    }

    /// Thrown when the queue took the slot back from a running download.
    private struct Preempted: Error {}

    /// Sends one request; `nil` when `transfer` says to ask again without a range.
    private func load(
        _ urlRequest: URLRequest,
        url: URL,
        isConditional: Bool,
        linkRole: LinkScheduler.Role,
        ticket: WorkQueue.Ticket,
        priority: DataLoadPriority,
        transfer: ResumableTransfer?,
        body: BodyHandout,
        context: TaskCoalescer<DataTaskKey, ImageDataResponse>.JobContext,
        preemption: Preemption
    ) async throws -> Response? {
        try Task.checkCancellation()
        let urlRequest = try await modified(urlRequest, url: url)
        instrumentation.record(.networkRequest(url: url, isConditional: isConditional))
        let requestTime = clock.now
        let (loader, limits, link) = (loader, limits, link)
        let linkID = link.sent(ticket: ticket.id, place: ticket.place, role: linkRole, priority: priority)
        var completed = false
        defer { link.ended(linkID, complete: completed) }
        // The transfer runs in a task of its own, so that a preemption stops it without
        // cancelling the job.
        let running = Task {
            try await loader.load(
                urlRequest, limits: limits, priority: priority,
                progress: { received, expected in
                    // A resumed body counts from the kept bytes on: the view's progress goes on.
                    let offset = Int64(transfer?.offset ?? 0)
                    context.reportProgress(received + offset, expected.map { $0 + offset })
                },
                received: { chunk in
                    link.received(chunk.count, of: linkID)
                    body.hand(chunk, context: context)
                },
                head: { response in
                    link.head(linkID, response: response)
                    guard let (prefix, total) = transfer?.didReceiveHead(response) else {
                        // The body comes from its first byte: what a retry handed before is void.
                        body.startOver(context: context)
                        return
                    }
                    // Subscribers that saw none of the body get the kept bytes first (progressive
                    // previews, the size); after a retry in the same job they already have them.
                    body.handOver(prefix, context: context)
                    context.reportProgress(Int64(prefix.count), Int64(total))
                },
                interrupted: { received in transfer?.interrupted(received) }
            )
        }
        preemption.onPreempt { running.cancel() }
        do {
            let loaded = try await withTaskCancellationHandler {
                try await running.value
            } onCancel: {
                running.cancel()
            }
            completed = true
            instrumentation.record(.bytesReceived(loaded.data.count))
            let outcome = transfer?.finish(loaded) ?? .response(data: loaded.data, response: loaded.response, resumedFrom: 0)
            guard case .response(let data, let response, let resumedFrom) = outcome else { return nil }
            return Response(
                data: data,
                response: response,
                requestTime: requestTime,
                responseTime: clock.now,
                redirects: loaded.redirects,
                resumedFrom: resumedFrom
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

/// What a download hands its job's subscribers of a body as it arrives: the chunks, the image's
/// size once its header is in (``ImageSizeReader``), and a restart when a body starts over.
private struct BodyHandout: Sendable {
    /// The body bytes the subscribers were handed, across the job's attempts.
    let reportedBytes: Locked<Int>
    let sizeReader: ImageSizeReader?

    func hand(_ chunk: Data, context: TaskCoalescer<DataTaskKey, ImageDataResponse>.JobContext) {
        reportedBytes.withLock { $0 += chunk.count }
        context.report(.bytes(chunk))
        if let size = sizeReader?.append(chunk) { context.report(.imageSize(size)) }
    }

    /// Hands the kept bytes a resumed body continues, unless the subscribers have them already.
    func handOver(_ prefix: Data, context: TaskCoalescer<DataTaskKey, ImageDataResponse>.JobContext) {
        let handsOver = reportedBytes.withLock { count in
            defer { if count == 0 { count = prefix.count } }
            return count == 0
        }
        guard handsOver else { return }
        context.report(.bytes(prefix))
        if let size = sizeReader?.append(prefix) { context.report(.imageSize(size)) }
    }

    /// A body from its first byte after the subscribers were handed some of another: void.
    func startOver(context: TaskCoalescer<DataTaskKey, ImageDataResponse>.JobContext) {
        let hadBytes = reportedBytes.withLock { count in
            defer { count = 0 }
            return count > 0
        }
        guard hadBytes else { return }
        sizeReader?.restart()
        context.report(.restarted)
    }
}
