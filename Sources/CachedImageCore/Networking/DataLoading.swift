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
///
/// ``URLSessionDataLoader`` does more than this one requirement asks: it enforces the pipeline's
/// size, pixel and redirect limits while the body streams, follows priority changes, hands the
/// body's chunks over as they arrive (progressive JPEG previews) and keeps the bytes of an
/// interrupted body so the next load resumes with a byte range. A loader of your own returns whole
/// bodies: the pipeline checks the body size once the load has finished, shows no progressive
/// previews for it and starts interrupted downloads again from zero.
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

/// A ``DataLoading`` that streams: it enforces `limits` while the body arrives, records redirect
/// hops, follows priority changes, hands over the body's chunks and reports the head and the bytes
/// of an interrupted body. ``URLSessionDataLoader`` is one; the pipeline calls the last
/// requirement, on a loader that is not one through `WholeBodyDataLoader` (the defaults below
/// around its `loadData`).
package protocol StreamingDataLoading: DataLoading {
    /// Loads the response body for `request`, enforcing `limits` and recording redirects.
    ///
    /// - Parameters:
    ///   - request: The request to send, including any conditional headers the pipeline added.
    ///   - limits: Size, pixel and redirect limits to enforce as early as the loader can.
    ///   - progress: Called as bytes arrive with the bytes received so far and the expected total.
    /// - Returns: The body, the final response and the redirect hops.
    /// - Throws: ``ImagePipeline/Error/responseTooLarge(url:limit:)``,
    ///   ``ImagePipeline/Error/imageTooLarge(url:size:maximumPixelCount:)``,
    ///   ``ImagePipeline/Error/tooManyRedirects(url:count:)``,
    ///   ``ImagePipeline/Error/redirectLoop(url:location:)``, or a transport error.
    func load(
        _ request: URLRequest,
        limits: DataLoadLimits,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void
    ) async throws -> DataLoadResponse

    /// Loads the response body for `request` like ``load(_:limits:progress:)``, following
    /// `priority` while the transfer runs. This is the method the pipeline calls.
    ///
    /// - Parameters:
    ///   - request: The request to send, including any conditional headers the pipeline added.
    ///   - limits: Size, pixel and redirect limits to enforce as early as the loader can.
    ///   - priority: The load's priority now and as it changes (`DataLoadPriority.observe(_:)`):
    ///     the highest priority among the requests waiting for these bytes.
    ///   - progress: Called as bytes arrive with the bytes received so far and the expected total.
    /// - Returns: The body, the final response and the redirect hops.
    func load(
        _ request: URLRequest,
        limits: DataLoadLimits,
        priority: DataLoadPriority,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void
    ) async throws -> DataLoadResponse

    /// Loads like ``load(_:limits:priority:progress:)``, also calling `received` with each chunk
    /// of the final response's body, in order, as it arrives (never a redirect's body).
    ///
    /// - Parameters:
    ///   - request: The request to send, including any conditional headers the pipeline added.
    ///   - limits: Size, pixel and redirect limits to enforce as early as the loader can.
    ///   - priority: The load's priority now and as it changes.
    ///   - progress: Called as bytes arrive with the bytes received so far and the expected total.
    ///   - received: Called with each new chunk of the body; keep it short (the pipeline copies
    ///     the chunk and returns).
    /// - Returns: The body, the final response and the redirect hops.
    func load(
        _ request: URLRequest,
        limits: DataLoadLimits,
        priority: DataLoadPriority,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void,
        received: @escaping @Sendable (_ chunk: Data) -> Void
    ) async throws -> DataLoadResponse

    /// Loads like ``load(_:limits:priority:progress:received:)``, also reporting the final
    /// response's head and, when the body stops before its end, the bytes that arrived. This is
    /// the method the pipeline calls.
    ///
    /// - Parameters:
    ///   - request: The request to send, including any conditional or `Range` headers the
    ///     pipeline added.
    ///   - limits: Size, pixel and redirect limits to enforce as early as the loader can.
    ///   - priority: The load's priority now and as it changes.
    ///   - progress: Called as bytes arrive with the bytes received so far and the expected total.
    ///   - received: Called with each new chunk of the body.
    ///   - head: Called once with the final response (status and header fields, no redirect),
    ///     before the first chunk of its body.
    ///   - interrupted: Called at most once, before the load throws, with the body bytes that
    ///     arrived when the transfer stopped before its end: the calling task was cancelled, or
    ///     the connection failed after the head. Never called for a limit the load enforced.
    /// - Returns: The body, the final response and the redirect hops.
    func load(
        _ request: URLRequest,
        limits: DataLoadLimits,
        priority: DataLoadPriority,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void,
        received: @escaping @Sendable (_ chunk: Data) -> Void,
        head: @escaping @Sendable (_ response: URLResponse) -> Void,
        interrupted: @escaping @Sendable (_ received: Data) -> Void
    ) async throws -> DataLoadResponse
}

extension StreamingDataLoading {
    /// Calls ``loadData(for:progress:)`` and checks `limits.maximumResponseBytes` after the load
    /// (a loader without streaming support cannot stop earlier). Reports no redirects.
    package func load(
        _ request: URLRequest,
        limits: DataLoadLimits,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void
    ) async throws -> DataLoadResponse {
        let (data, response) = try await loadData(for: request, progress: progress)
        if let limit = limits.maximumResponseBytes, data.count > limit {
            let url = response.url ?? request.url ?? URL(fileURLWithPath: "/")
            throw ImagePipeline.Error.responseTooLarge(url: url, limit: limit)
        }
        return DataLoadResponse(data: data, response: response)
    }

    /// Ignores `priority` (a loader without reprioritisation) and calls
    /// ``load(_:limits:progress:)``.
    package func load(
        _ request: URLRequest,
        limits: DataLoadLimits,
        priority: DataLoadPriority,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void
    ) async throws -> DataLoadResponse {
        try await load(request, limits: limits, progress: progress)
    }

    /// Hands no chunks (a loader that only returns whole bodies) and calls
    /// ``load(_:limits:priority:progress:)``.
    package func load(
        _ request: URLRequest,
        limits: DataLoadLimits,
        priority: DataLoadPriority,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void,
        received: @escaping @Sendable (_ chunk: Data) -> Void
    ) async throws -> DataLoadResponse {
        try await load(request, limits: limits, priority: priority, progress: progress)
    }

    /// Reports no head and no interrupted bytes (downloads through this loader are never
    /// resumed) and calls ``load(_:limits:priority:progress:received:)``.
    package func load(
        _ request: URLRequest,
        limits: DataLoadLimits,
        priority: DataLoadPriority,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void,
        received: @escaping @Sendable (_ chunk: Data) -> Void,
        head: @escaping @Sendable (_ response: URLResponse) -> Void,
        interrupted: @escaping @Sendable (_ received: Data) -> Void
    ) async throws -> DataLoadResponse {
        try await load(request, limits: limits, priority: priority, progress: progress, received: received)
    }
}

/// An app's ``DataLoading`` as the pipeline calls it: the streaming requirements' defaults
/// around its `loadData` (the body size checked once the load has finished; no redirects,
/// chunks, head or interrupted bytes reported).
struct WholeBodyDataLoader: StreamingDataLoading {
    let base: any DataLoading

    func loadData(
        for request: URLRequest,
        progress: @escaping @Sendable (_ received: Int64, _ expected: Int64?) -> Void
    ) async throws -> (Data, URLResponse) {
        try await base.loadData(for: request, progress: progress)
    }
}
