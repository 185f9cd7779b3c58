#if canImport(AppKit) && !targetEnvironment(macCatalyst)
import AppKit
import CachedImageCore
import QuartzCore

/// Loads images into an `NSImageView` through an ``ImagePipeline``, safe in reused table and
/// collection view items: a reused item never shows the previous row's image. The AppKit mirror
/// of the UIKit loader of the same name, over the same state machine.
///
/// ```swift
/// final class PhotoItem: NSCollectionViewItem {
///     lazy var loader = CachedImageViewLoader(imageView: imageView!)
///
///     func configure(with url: URL?) {
///         loader.load(url)           // placeholder at once, image when it arrives
///     }
///
///     override func prepareForReuse() {
///         super.prepareForReuse()
///         loader.prepareForReuse()   // cancels (or demotes) the old load, shows the placeholder
///     }
/// }
/// ```
///
/// The decoded size follows the view: a request without a `targetSize` is decoded for the image
/// view's bounds at its window's backing scale (the main screen's before it has a window), as
/// its `imageScaling` draws it. The loader follows the view's frame and its window's backing
/// scale itself; call ``layoutDidChange()`` from `layout()` or `viewDidMoveToWindow()` if the
/// view is resized or moved some other way. Memory hits show in the same frame without a
/// transition; images that arrive later cross-dissolve (``transitionDuration``) in a
/// layer-backed view. What reuse does to a load in flight: ``reuseBehavior``.
@MainActor
public final class CachedImageViewLoader {
    /// The view images go into (held weakly).
    public private(set) weak var imageView: NSImageView?

    /// Shown while loading and when there is no request. Default: `nil` (an empty view).
    public var placeholder: NSImage?

    /// A ThumbHash or BlurHash that came with the image's URL, painted instead of
    /// ``placeholder`` while the image loads; a memory hit never shows it. Default `nil`.
    public var placeholderHash: HashPlaceholder?

    /// Shown when loading fails. Default: `nil` (the placeholder).
    public var failureImage: NSImage?

    /// The cross-dissolve for images that arrive after ``load(_:)``; `0` for none. Default 0.25 s.
    public var transitionDuration: TimeInterval = 0.25

    /// The controller underneath (reuse behaviour, the loader and its pipeline).
    package let controller: ImageViewLoadingController

    private let observers = NotificationObservers()
    /// The key of this loader's own cross-dissolve: only it is ever removed.
    private static let transitionKey = "CachedImageViewLoader.transition"

    /// Creates a loader for `imageView` through `pipeline`.
    public init(imageView: NSImageView, pipeline: ImagePipeline = .shared) {
        self.imageView = imageView
        controller = ImageViewLoadingController(pipeline: pipeline)
        controller.onDisplay = { [weak self] display in self?.apply(display) }
        imageView.postsFrameChangedNotifications = true
        let center = NotificationCenter.default
        let layoutChanged = MainThreadCallback.make { [weak self] in self?.layoutDidChange() }
        // The window moved to a screen of another scale: retarget like a resize.
        let scaleChanged = MainThreadCallback.make { [weak self] in self?.backingScaleDidChange() }
        observers.tokens = [
            center.addObserver(forName: NSView.frameDidChangeNotification, object: imageView, queue: .main) { _ in layoutChanged() },
            center.addObserver(forName: NSWindow.didChangeBackingPropertiesNotification, object: nil, queue: .main) { _ in scaleChanged() },
        ]
        MemoryPressureTrimmer.install(for: pipeline)
    }

    /// Loads `url` (`nil` shows the placeholder).
    public func load(_ url: URL?) {
        guard let url else {
            controller.setRequest(nil)
            return
        }
        load(ImageRequest(url: url))
    }

    /// Loads `request`, decoded for the view's size when it has no `targetSize`, fitting or
    /// filling as the view's `imageScaling` draws it (proportional: fit; axes independently:
    /// fill). A view that draws its image unscaled (`.scaleNone`) gets the pipeline's cap.
    public func load(_ request: ImageRequest) {
        guard let imageView else { return }
        let bounds = imageView.bounds.size
        controller.setRequest(
            request, drawnIn: ImageContentMode(imageScaling: Int(imageView.imageScaling.rawValue)),
            width: Double(bounds.width), height: Double(bounds.height), scale: Double(Self.scale(of: imageView))
        )
    }

    /// The view's size or scale may have changed: loads a request that waited for a size, or a
    /// larger size. Called automatically when the view's frame changes; cheap when nothing changed.
    public func layoutDidChange() {
        guard let imageView else { return }
        let bounds = imageView.bounds.size
        controller.viewDidLayout(width: Double(bounds.width), height: Double(bounds.height), scale: Double(Self.scale(of: imageView)))
    }

    /// Call from the item's `prepareForReuse()`: stops or demotes the load and shows the placeholder.
    public func prepareForReuse() {
        controller.prepareForReuse()
    }

    /// A window changed its backing properties: if it is the view's, its scale may have changed.
    private func backingScaleDidChange() {
        guard let window = imageView?.window else { return }
        controller.viewScaleDidChange(Double(window.backingScaleFactor))
    }

    /// The window's backing scale; before the view has a window, the main screen's.
    private static func scale(of view: NSView) -> CGFloat {
        let scale = view.window?.backingScaleFactor ?? NSScreen.main?.backingScaleFactor ?? 1
        return scale > 0 ? scale : 1
    }

    /// The hash's tiny bitmap sized in points to fit the view (as the image will be drawn):
    /// `NSImageView`'s default scaling never enlarges an image, so a 32-point placeholder
    /// would sit small in the middle of the view.
    private static func stretched(_ hash: HashPlaceholder, over view: NSImageView) -> NSImage? {
        guard let cgImage = hash.image?.cgImage, cgImage.width > 0, cgImage.height > 0 else { return nil }
        let bounds = view.bounds.size
        let fit = min(bounds.width / CGFloat(cgImage.width), bounds.height / CGFloat(cgImage.height))
        let scale = fit.isFinite && fit > 0 ? fit : 1
        return NSImage(cgImage: cgImage, size: NSSize(width: CGFloat(cgImage.width) * scale, height: CGFloat(cgImage.height) * scale))
    }

    private func apply(_ display: ImageViewLoadingController.Display) {
        guard let imageView else { return }
        imageView.layer?.removeAnimation(forKey: Self.transitionKey)
        switch display {
        case .placeholder:
            imageView.image = placeholderHash.flatMap { Self.stretched($0, over: imageView) } ?? placeholder
        case .failure:
            imageView.image = failureImage ?? placeholder
        case .image(let response, let animated):
            // Downsampled for the view: pixels per point of the screen, so its point size is the view's.
            let scale = ImageDisplayScale.scale(showing: response, displayScale: Double(Self.scale(of: imageView)))
            let image = response.image.platformImage(scale: CGFloat(scale))
            if animated, transitionDuration > 0, let layer = imageView.layer {
                let transition = CATransition()
                transition.type = .fade
                transition.duration = transitionDuration
                layer.add(transition, forKey: Self.transitionKey)
            }
            imageView.image = image
        }
    }
}

/// Notification observers, removed when their loader goes away.
private final class NotificationObservers: @unchecked Sendable {
    var tokens: [any NSObjectProtocol] = []

    deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }
}
#endif
