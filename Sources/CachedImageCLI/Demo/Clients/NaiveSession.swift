import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ToolSupport

/// The session the documents-directory and NSCache baselines download with: the default
/// configuration without a `URLCache`, so each baseline measures only its own cache.
enum NaiveSession {
    static func configuration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }
}

extension URLSession {
    /// `data(for:)` whose cancellation (a view disappearing) cancels the transfer from another
    /// thread: on Linux, cancelling swift-corelibs-foundation's own async `data(for:)` from a
    /// task's cancellation handler can deadlock (the handler waits on the session's queue while
    /// that queue waits on the task's status lock), which would hang the demo's fling.
    func cancellableData(for request: URLRequest) async throws -> (Data, URLResponse) {
        let box = Protected<URLSessionDataTask?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = dataTask(with: request) { data, response, error in
                    if let data, let response {
                        continuation.resume(returning: (data, response))
                    } else {
                        continuation.resume(throwing: error ?? URLError(.unknown))
                    }
                }
                box.withLock { $0 = task }
                task.resume()
                if Task.isCancelled { DispatchQueue.global().async { task.cancel() } }
            }
        } onCancel: {
            let task = box.withLock { $0 }
            DispatchQueue.global().async { task?.cancel() }
        }
    }
}
