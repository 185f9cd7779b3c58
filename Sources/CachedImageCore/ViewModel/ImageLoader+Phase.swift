import Foundation

extension ImageLoader {
    /// What the loader shows.
    public enum Phase: Sendable {
        /// Nothing requested (a `nil` URL), the load was cancelled, or the view left the screen
        /// and its load or image was let go (it comes back when the view does).
        case empty
        /// Loading from disk or network; the progress of the download.
        case loading(Progress)
        /// The image, and where it came from (`.memory` for a synchronous hit).
        case success(ImageResponse)
        /// Loading failed: usually an ``ImagePipeline/Error``. It stays until ``ImageLoader/retry()``,
        /// another request, or, for a transient failure, a reason to ask again
        /// (``FailureRecovery``); never on a re-render or a quick return.
        case failure(any Error)

        /// The response when the phase is `.success`.
        public var response: ImageResponse? {
            if case .success(let response) = self { return response }
            return nil
        }

        /// The error when the phase is `.failure`.
        public var error: (any Error)? {
            if case .failure(let error) = self { return error }
            return nil
        }

        /// The progress when the phase is `.loading`.
        public var progress: Progress? {
            if case .loading(let progress) = self { return progress }
            return nil
        }

        var isLoading: Bool { progress != nil }
    }

    /// Bytes received so far for the current request's download.
    public struct Progress: Sendable, Hashable {
        /// Body bytes received.
        public var completed: Int64
        /// Body bytes expected, when the server said (`Content-Length`).
        public var total: Int64?

        public init(completed: Int64, total: Int64?) {
            self.completed = completed
            self.total = total
        }

        /// `completed / total` in `0...1`, or `nil` when the total is unknown.
        public var fraction: Double? {
            guard let total, total > 0 else { return nil }
            return min(1, max(0, Double(completed) / Double(total)))
        }
    }

    /// What happens when the view leaves the screen (``ImageLoader/didDisappear()`` with no
    /// appearance left outstanding).
    public enum DisappearBehavior: Sendable, Hashable {
        /// Keep loading at this lower priority (visible images go first) and keep the image;
        /// the request's own priority comes back with the view.
        case lowerPriority(to: ImageRequest.Priority)
        /// Cancel this view's interest, and let go of its image, once the current main-actor
        /// turn ends with the view still off screen (a branch swap that disappears and appears
        /// in one update cancels nothing). The view loads again when it comes back: from the
        /// memory cache when the image is there (in the same frame), else from disk or network.
        case cancel
        /// The default (``automatic``): lower the priority at once; if the view is still off
        /// screen `after` seconds later, cancel the load and let go of the image as ``cancel``
        /// does. A fling stops the loads of the rows it passed; a quick scroll back finds its
        /// loads still running and its images still held. A row flung past (on screen under a
        /// quarter of a second, nothing shown) gets no grace period: its load stops at the end
        /// of the main-actor turn. While off screen, a running download gives its slot to a
        /// visible request that waits for one.
        case lowerPriorityThenCancel(to: ImageRequest.Priority, after: TimeInterval)

        /// `.lowerPriorityThenCancel(to: .low, after: 0.5)`: the default.
        public static let automatic = DisappearBehavior.lowerPriorityThenCancel(to: .low, after: 0.5)

        /// The priority a load runs at while its view is off screen, if it keeps running.
        var offscreenPriority: ImageRequest.Priority? {
            switch self {
            case .lowerPriority(let priority), .lowerPriorityThenCancel(let priority, _): priority
            case .cancel: nil
            }
        }

        /// Seconds off screen after which the load is cancelled and the image let go; `nil`: never.
        var gracePeriod: TimeInterval? {
            switch self {
            case .lowerPriority: nil
            case .cancel: 0
            case .lowerPriorityThenCancel(_, let seconds): max(0, seconds)
            }
        }
    }

    /// Why the phase is `.empty` while the current request is set: what brings the image back.
    enum Pause: Sendable, Hashable {
        /// Cancelled or never started: ``ImageLoader/load(_:)`` starts it.
        case stopped
        /// The view left the screen and its load was cancelled: its next appearance restarts it.
        case suspended
        /// The view left the screen and its image was let go: its next appearance takes it back
        /// from the memory cache (or loads it again).
        case released
    }
}
