#if canImport(UIKit) && !os(watchOS) || canImport(AppKit) && !targetEnvironment(macCatalyst)
import CachedImageCore

extension CachedImageViewLoader {
    /// What happens to a load still in flight when the view is reused for another image.
    public enum ReuseBehavior: Sendable, Hashable {
        /// Cancel it (other requests for the same image keep the download going). The default.
        case cancel
        /// Let it finish at this priority (never raised), into the caches, behind visible
        /// images: scrolling back finds the image cached.
        case lowerPriority(to: ImageRequest.Priority)
    }

    /// What ``prepareForReuse()`` and a load of another image do to the load in flight, in
    /// the UIKit and AppKit loaders alike. Default ``ReuseBehavior/cancel``.
    ///
    /// ```swift
    /// // Scrolled away before it loaded: finish at low priority, so scrolling back is instant.
    /// loader.reuseBehavior = .lowerPriority(to: .low)
    /// ```
    public var reuseBehavior: ReuseBehavior {
        get {
            switch controller.reuseBehavior {
            case .cancel: .cancel
            case .lowerPriority(let priority): .lowerPriority(to: priority)
            }
        }
        set {
            switch newValue {
            case .cancel: controller.reuseBehavior = .cancel
            case .lowerPriority(let priority): controller.reuseBehavior = .lowerPriority(to: priority)
            }
        }
    }
}
#endif
