import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one ``URLSessionDataLoader`` request: the continuation to resume, the bytes
/// received so far and the task to cancel. Every member is safe to call from any thread; the
/// continuation is resumed exactly once, by whichever of completion or cancellation comes first.
final class DataLoadOperation: Sendable {
    private struct State {
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
        var task: URLSessionTask?
        var isCancelled = false
        var data = Data()
    }

    private let state = Locked(State())
    private let progress: @Sendable (_ received: Int64, _ expected: Int64?) -> Void

    init(progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void) {
        self.progress = progress
    }

    /// Stores the task and continuation. Returns `false` (storing nothing) when the operation
    /// was already cancelled, in which case the caller resumes the continuation itself.
    func attach(task: URLSessionTask, continuation: CheckedContinuation<(Data, URLResponse), any Error>) -> Bool {
        state.withLock { state in
            guard !state.isCancelled else { return false }
            state.task = task
            state.continuation = continuation
            return true
        }
    }

    /// Cancels the request: throws `CancellationError` to the caller now and cancels the task.
    func cancel() {
        let (continuation, task) = state.withLock { state in
            state.isCancelled = true
            let pending = (state.continuation, state.task)
            state.continuation = nil
            state.task = nil
            state.data = Data()
            return pending
        }
        continuation?.resume(throwing: CancellationError())
        task?.cancel()
    }

    /// Appends received bytes and reports progress.
    func didReceive(_ chunk: Data, expectedLength: Int64) {
        let received: Int64? = state.withLock { state in
            guard state.continuation != nil else { return nil }
            state.data.append(chunk)
            return Int64(state.data.count)
        }
        guard let received else { return }
        // A length the body has already outgrown (for example a compressed length) is no total.
        let expected: Int64? = expectedLength >= received ? expectedLength : nil
        progress(received, expected)
    }

    /// Resumes the caller with the body and response, or with the failure.
    func complete(response: URLResponse?, error: (any Error)?) {
        let (continuation, data, isCancelled) = state.withLock { state in
            let pending = (state.continuation, state.data, state.isCancelled)
            state.continuation = nil
            state.task = nil
            state.data = Data()
            return pending
        }
        guard let continuation else { return }
        if let error {
            if isCancelled || (error as? URLError)?.code == .cancelled {
                continuation.resume(throwing: CancellationError())
            } else if let response, let url = response.url,
                      response.expectedContentLength > 0, Int64(data.count) < response.expectedContentLength {
                // The connection closed before the declared length arrived: say so precisely
                // instead of passing on a generic transport error.
                continuation.resume(throwing: ImagePipeline.Error.truncatedResponse(
                    url: url, received: data.count, expected: Int(response.expectedContentLength)
                ))
            } else {
                continuation.resume(throwing: error)
            }
        } else if let response {
            continuation.resume(returning: (data, response))
        } else {
            continuation.resume(throwing: URLError(.badServerResponse))
        }
    }
}
