import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one ``URLSessionDataLoader`` request: the continuation to resume, the bytes
/// received so far, the redirect hops and the task to cancel. Every member is safe to call from
/// any thread; the continuation is resumed exactly once, by whichever of completion,
/// cancellation or a limit failure comes first.
final class DataLoadOperation: Sendable {
    private struct State {
        var continuation: CheckedContinuation<DataLoadResponse, any Error>?
        var task: URLSessionTask?
        var isCancelled = false
        var data = Data()
        var redirects: [HTTPURLResponse] = []
        /// How many times each URL was requested (the first request included).
        var visits: [String: Int] = [:]
        /// Whether the pixel limit has been decided from the prefix (or can no longer be).
        var isHeaderChecked = false
        /// How many bytes must have arrived before the header is looked for again.
        var nextHeaderCheck = 0
        /// How many times the header has been looked for.
        var headerLookCount = 0
        /// A refused redirect: thrown when the task completes with the redirect response.
        var redirectFailure: ImagePipeline.Error?
        /// Whether the final response's head arrived (its body bytes may then be resumed).
        var hasHead = false
    }

    /// How many times one URL may be requested while following redirects.
    private static let visitsPerURL = 2

    /// How much of the body is searched for an image header; beyond it the validator decides.
    private static let headerSearchLimit = 512 * 1024

    private let state = Locked(State())
    private let url: URL
    private let limits: DataLoadLimits
    private let progress: @Sendable (_ received: Int64, _ expected: Int64?) -> Void
    private let received: @Sendable (_ chunk: Data) -> Void
    private let head: @Sendable (_ response: URLResponse) -> Void
    private let interrupted: @Sendable (_ received: Data) -> Void

    init(
        url: URL,
        limits: DataLoadLimits = DataLoadLimits(),
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void,
        received: @escaping @Sendable (_ chunk: Data) -> Void = { _ in },
        head: @escaping @Sendable (_ response: URLResponse) -> Void = { _ in },
        interrupted: @escaping @Sendable (_ received: Data) -> Void = { _ in }
    ) {
        self.url = url
        self.limits = limits
        self.progress = progress
        self.received = received
        self.head = head
        self.interrupted = interrupted
        state.withLock { $0.visits[url.absoluteString] = 1 }
    }

    /// How many times the received bytes have been parsed for an image header so far.
    var headerLookCount: Int { state.withLock { $0.headerLookCount } }

    /// Stores the task and continuation. Returns `false` (storing nothing) when the operation
    /// was already cancelled, in which case the caller resumes the continuation itself.
    func attach(task: URLSessionTask, continuation: CheckedContinuation<DataLoadResponse, any Error>) -> Bool {
        state.withLock { state in
            guard !state.isCancelled else { return false }
            state.task = task
            state.continuation = continuation
            return true
        }
    }

    /// Sets the running task's priority (nothing once the load has ended).
    func setPriority(_ priority: ImageRequest.Priority) {
        let task = state.withLock { $0.task }
        task?.priority = priority.urlSessionTaskPriority
    }

    /// Cancels the request: hands the body bytes received to `interrupted`, throws
    /// `CancellationError` to the caller now and cancels the task.
    func cancel() {
        fail(CancellationError(), handsOverBytes: true)
    }

    /// Ends the request with `error` now and cancels the task; with `handsOverBytes`, the body
    /// bytes received go to `interrupted` first.
    private func fail(_ error: any Error, handsOverBytes: Bool = false) {
        let (continuation, task, data) = state.withLock { state in
            state.isCancelled = true
            let pending = (state.continuation, state.task, state.hasHead ? state.data : Data())
            state.continuation = nil
            state.task = nil
            state.data = Data()
            return pending
        }
        if handsOverBytes, continuation != nil, !data.isEmpty {
            interrupted(data)
        }
        continuation?.resume(throwing: error)
        task?.cancel()
    }

    /// Answers the session's redirect callback through `respond`: `true` to follow, `false`
    /// for a loop or one hop over ``DataLoadLimits/maxRedirects`` (the session then completes
    /// the task with the redirect response, and the request fails with the named error).
    ///
    /// With corelibs Foundation, a request that was already ended (cancelled, or failed on a
    /// limit) gets no answer at all: its task was cancelled, and an answer arriving after the
    /// cancellation traps (`Received callback for HTTP redirection, but we're not waiting for
    /// it`). `respond` runs under the operation's lock, so a cancellation either comes before
    /// the check (no answer) or after the answer was handed to the session (which handles the
    /// answer first). The task is not cancelled here, for the same reason.
    func answerRedirect(_ response: HTTPURLResponse, to newURL: URL?, _ respond: (Bool) -> Void) {
        state.withLock { state in
            #if canImport(FoundationNetworking)
            if state.isCancelled { return }
            #endif
            respond(follows(response, to: newURL, state: &state))
        }
    }

    /// Records a redirect hop; `false` when it must be refused (see ``answerRedirect(_:to:_:)``).
    ///
    /// A redirect back to a URL already requested is followed once per URL, as `URLSession` and
    /// browsers follow it: a server that sets a cookie and redirects to the same URL answers the
    /// second request with the image. A URL requested a third time is a loop.
    private func follows(_ response: HTTPURLResponse, to newURL: URL?, state: inout State) -> Bool {
        guard state.continuation != nil else { return true }
        state.redirects.append(response)
        let from = response.url ?? url
        guard let newURL else { return true }
        let visits = state.visits[newURL.absoluteString, default: 0] + 1
        state.visits[newURL.absoluteString] = visits
        if visits > Self.visitsPerURL {
            state.redirectFailure = .redirectLoop(url: from, location: newURL)
        } else if state.redirects.count > limits.maxRedirects {
            state.redirectFailure = .tooManyRedirects(url: url, count: state.redirects.count)
        }
        return state.redirectFailure == nil
    }

    /// Checks the announced length of the final response. Returns `false` (and fails the
    /// request) when it exceeds ``DataLoadLimits/maximumResponseBytes``.
    func didReceive(_ response: URLResponse) -> Bool {
        if let limit = limits.maximumResponseBytes, response.expectedContentLength > Int64(limit),
           (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding") == nil {
            fail(ImagePipeline.Error.responseTooLarge(url: response.url ?? url, limit: limit))
            return false
        }
        let isCurrent = state.withLock { state in
            state.hasHead = state.continuation != nil
            return state.hasHead
        }
        if isCurrent { head(response) }
        return true
    }

    /// Appends received bytes, enforces the limits and reports progress.
    func didReceive(_ chunk: Data, expectedLength: Int64, responseURL: URL?) {
        enum Outcome { case ignored, progress(Int64), failed(ImagePipeline.Error) }
        let outcome: Outcome = state.withLock { state in
            guard state.continuation != nil else { return .ignored }
            state.data.append(chunk)
            let count = state.data.count
            if let limit = limits.maximumResponseBytes, count > limit {
                return .failed(.responseTooLarge(url: responseURL ?? url, limit: limit))
            }
            // The header is looked for again only once the bytes have doubled since the last
            // look (and once more at the search limit): a server trickling its body a byte at a
            // time would otherwise have the whole prefix parsed once per byte, quadratic work
            // under this lock. This way the looks parse at most about twice the prefix in all.
            if let maxPixels = limits.maximumPixelCount, !state.isHeaderChecked,
               count >= state.nextHeaderCheck || count >= Self.headerSearchLimit {
                state.headerLookCount += 1
                if let size = ImageInfo(data: state.data)?.decodingSize {
                    state.isHeaderChecked = true
                    if size.pixelCount > maxPixels {
                        return .failed(.imageTooLarge(url: responseURL ?? url, size: size, maximumPixelCount: maxPixels))
                    }
                } else if count >= Self.headerSearchLimit {
                    state.isHeaderChecked = true
                } else {
                    state.nextHeaderCheck = count * 2
                }
            }
            return .progress(Int64(count))
        }
        switch outcome {
        case .ignored:
            return
        case .failed(let error):
            fail(error)
        case .progress(let received):
            // A length the body has already outgrown (for example a compressed length) is no total.
            let expected: Int64? = expectedLength >= received ? expectedLength : nil
            self.received(chunk)
            progress(received, expected)
        }
    }

    /// Whether a transfer error after the response head means the connection ended: a reset
    /// (`networkConnectionLost`), or, in corelibs Foundation, libcurl's "transfer closed with
    /// outstanding read data remaining" (an orderly close inside a chunked body), which
    /// surfaces as `URLError.unknown`. Both are reported as soon as the socket says so.
    private static func isConnectionDrop(_ error: any Error) -> Bool {
        guard let code = (error as? URLError)?.code else { return false }
        return code == .networkConnectionLost || code == .unknown
    }

    /// Resumes the caller with the body and response, or with the failure.
    func complete(response: URLResponse?, error: (any Error)?) {
        let (continuation, data, redirects, isCancelled, redirectFailure, hasHead) = state.withLock { state in
            let pending = (state.continuation, state.data, state.redirects, state.isCancelled, state.redirectFailure, state.hasHead)
            state.continuation = nil
            state.task = nil
            state.data = Data()
            return pending
        }
        guard let continuation else { return }
        if let redirectFailure {
            continuation.resume(throwing: redirectFailure)
            return
        }
        if error != nil, hasHead, !data.isEmpty {
            // The transfer stopped after the head: the bytes that arrived may be resumed.
            interrupted(data)
        }
        if let error {
            if isCancelled || (error as? URLError)?.code == .cancelled {
                continuation.resume(throwing: CancellationError())
            } else if let response, let url = response.url,
                      response.expectedContentLength > 0, Int64(data.count) < response.expectedContentLength {
                // The connection closed before the declared length arrived: say so precisely
                // instead of passing on a generic transport error.
                continuation.resume(throwing: ImagePipeline.Error.truncatedResponse(
                    url: url, received: data.count, expected: Int(exactly: response.expectedContentLength)
                ))
            } else if let response, let url = response.url, Self.isConnectionDrop(error) {
                // The head arrived, then the connection ended (FIN or RST) inside a body of
                // unannounced length (chunked): the body was cut short just the same.
                continuation.resume(throwing: ImagePipeline.Error.truncatedResponse(
                    url: url, received: data.count, expected: nil
                ))
            } else if (error as? URLError)?.code == .httpTooManyRedirects {
                continuation.resume(throwing: ImagePipeline.Error.tooManyRedirects(url: url, count: redirects.count))
            } else {
                continuation.resume(throwing: error)
            }
        } else if let response {
            continuation.resume(returning: DataLoadResponse(data: data, response: response, redirects: redirects))
        } else {
            continuation.resume(throwing: URLError(.badServerResponse))
        }
    }
}
