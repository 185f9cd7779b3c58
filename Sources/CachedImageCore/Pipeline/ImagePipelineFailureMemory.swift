import Foundation

extension ImagePipeline {
    /// How long the pipeline remembers that an image failed, answering requests for it with the
    /// same error instead of asking the server again: a cell showing a broken image does not
    /// refetch every time it scrolls into view.
    ///
    /// Only answers the server gave count (an HTTP error status, a body that is not an image or
    /// is too large); connection failures are not remembered, since the network may be back the
    /// next moment. A `Retry-After` on the failed response is honoured as the interval.
    /// Requests with ``ImageRequest/Options/retryingFailure`` (``ImageLoader/retry()`` adds it),
    /// `.reloadIgnoringCachedData` or `.reloadRevalidatingCachedData` always ask again.
    ///
    /// ```swift
    /// var configuration = ImagePipeline.Configuration()
    /// configuration.failureMemory = .init(clientErrorInterval: 300, serverErrorInterval: 30)
    /// ```
    public struct FailureMemory: Sendable, Hashable {
        /// Seconds a 4xx status or a body that is not a usable image is remembered. Default: 60.
        public var clientErrorInterval: TimeInterval
        /// Seconds a 5xx status is remembered when the response names no `Retry-After`. Default: 10.
        public var serverErrorInterval: TimeInterval
        /// Failures remembered at most (the oldest are forgotten first). Default: 1,000.
        public var capacity: Int

        /// Creates a policy.
        public init(clientErrorInterval: TimeInterval = 60, serverErrorInterval: TimeInterval = 10, capacity: Int = 1_000) {
            self.clientErrorInterval = max(0, clientErrorInterval)
            self.serverErrorInterval = max(0, serverErrorInterval)
            self.capacity = max(0, capacity)
        }

        /// Nothing is remembered: every request asks the server.
        public static var disabled: FailureMemory { FailureMemory(clientErrorInterval: 0, serverErrorInterval: 0, capacity: 0) }

        /// How long `failure` is remembered, or `nil` when it is not.
        func interval(for failure: DownloadFailure) -> TimeInterval? {
            let interval: TimeInterval
            switch failure.error {
            case .badStatusCode(_, let status) where status >= 500 || status == 429 || status == 408:
                interval = failure.retryAfter ?? serverErrorInterval
            case .badStatusCode, .notAnImage, .imageTooLarge, .emptyResponse:
                interval = failure.retryAfter ?? clientErrorInterval
            default:
                return nil
            }
            return interval > 0 && capacity > 0 ? interval : nil
        }
    }
}
