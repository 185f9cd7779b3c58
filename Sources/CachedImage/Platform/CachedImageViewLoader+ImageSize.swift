#if canImport(UIKit) && !os(watchOS) || canImport(AppKit) && !targetEnvironment(macCatalyst)
import CachedImageCore

extension CachedImageViewLoader {
    /// Called on the main thread with the image's size in pixels, as it shows: as soon as the
    /// first bytes of its download give it, before the image arrives, or with the image itself
    /// when it comes whole from the caches. Once per URL the view shows, and again after
    /// ``prepareForReuse()``: size a self-sizing cell from its aspect ratio so nothing moves when
    /// the image comes. UIKit and AppKit loaders alike.
    ///
    /// ```swift
    /// loader.onImageSize = { size in
    ///     heightConstraint.constant = imageView.bounds.width / CGFloat(size.aspectRatio)
    /// }
    /// ```
    public var onImageSize: (@MainActor (PixelSize) -> Void)? {
        get { controller.onImageSize }
        set { controller.onImageSize = newValue }
    }
}
#endif
