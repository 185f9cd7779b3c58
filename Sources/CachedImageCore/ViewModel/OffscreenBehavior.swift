import Foundation

/// What happens when an image view leaves the screen (its last appearance has disappeared):
/// `CachedAsyncImage`'s `.offscreenBehavior(_:)`, `CachedImageModel.offscreenBehavior`.
///
/// ```swift
/// CachedAsyncImage(url: url)
///     .offscreenBehavior(.cancel)
/// ```
public enum OffscreenBehavior: Sendable, Hashable {
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
    /// loads still running and its images still held (or back from memory). A row flung past (on screen under a
    /// quarter of a second, nothing shown) gets no grace period: its load stops at the end of
    /// the main-actor turn. An image the memory cache holds is let go at the end of the turn
    /// too (a return takes it back from memory in the same frame), so rows in their grace
    /// period never hold images beyond the cache's budget. While off screen, a running
    /// download gives its slot to a visible request that waits for one.
    case lowerPriorityThenCancel(to: ImageRequest.Priority, after: TimeInterval)

    /// `.lowerPriorityThenCancel(to: .low, after: 0.5)`: the default.
    public static let automatic = OffscreenBehavior.lowerPriorityThenCancel(to: .low, after: 0.5)

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
