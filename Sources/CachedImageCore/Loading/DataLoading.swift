import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches the bytes behind a URL request. The pipeline calls it only on a cache miss or to
/// revalidate a stale entry; plug in your own to add authentication, logging or a mock.
///
/// Implementations report transport failures by throwing (for example `URLError`) and must
/// throw `CancellationError` (or `URLError(.cancelled)`) promptly when the calling task is
/// cancelled. They return every response, including non-2xx ones: the pipeline checks status,
/// length and content itself.
public protocol DataLoading: Sendable {
    /// Loads the response body for `request`.
    ///
    /// - Parameters:
    ///   - request: The request to send, including any conditional headers the pipeline added.
    ///   - progress: Called as bytes arrive with the bytes received so far and the expected total
    ///     (`nil` when the server did not say).
    /// - Returns: The complete body and the response.
    func loadData(
        for request: URLRequest,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void
    ) async throws -> (Data, URLResponse)
}
