import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session delegate of ``URLSessionDataLoader``: routes each callback to the
/// ``DataLoadOperation`` registered for the task's identifier.
final class DataLoaderSessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let operations = Locked([Int: DataLoadOperation]())

    func register(_ operation: DataLoadOperation, for taskIdentifier: Int) {
        operations.withLock { $0[taskIdentifier] = operation }
    }

    private func operation(for task: URLSessionTask) -> DataLoadOperation? {
        operations.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let operation = operation(for: task) else {
            completionHandler(request)
            return
        }
        operation.answerRedirect(response, to: request.url) { follow in
            completionHandler(follow ? request : nil)
        }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let allowed = operation(for: dataTask)?.didReceive(response) ?? true
        completionHandler(allowed ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let expected = dataTask.response?.expectedContentLength ?? -1
        operation(for: dataTask)?.didReceive(data, expectedLength: expected, responseURL: dataTask.response?.url)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let operation = operations.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        operation?.complete(response: task.response, error: error)
    }
}
