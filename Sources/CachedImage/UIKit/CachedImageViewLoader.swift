#if canImport(UIKit) && !os(watchOS)
import CachedImageCore
import UIKit

/// Loads images into a `UIImageView` through an ``ImagePipeline``, safe in reused table and
/// collection view cells: a reused cell never shows the previous row's image.
///
/// ```swift
/// final class PhotoCell: UICollectionViewCell {
///     let imageView = UIImageView()
///     lazy var loader = CachedImageViewLoader(imageView: imageView)
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
/// view's bounds at its screen's scale. A dimension of zero is unknown: a view with one known
/// dimension fits the image to it; a view with no size (an Auto Layout cell configured in
/// `cellForItemAt`) loads after its first layout, at the pipeline's cap when that layout gave
/// no size (an image view sized by its image). When the view grows (rotation, self-sizing) or
/// its scale changes (it joins a window) the image is loaded again at the new size while the
/// current one stays on screen; a download in flight is joined, never restarted. The loader
/// follows the view's bounds and scale itself; call ``layoutDidChange()`` from `layoutSubviews` if the
/// view is resized some other way. Memory hits show in the same frame without a transition;
/// images that arrive later cross-dissolve (``transitionDuration``). What reuse does to a load
/// in flight: ``reuseBehavior``.
@MainActor
public final class CachedImageViewLoader {
    /// The view images go into (held weakly).
    public private(set) weak var imageView: UIImageView?

    /// Shown while loading and when there is no request. Default: `nil` (an empty view).
    public var placeholder: UIImage?

    /// A ThumbHash or BlurHash that came with the image's URL, painted (stretched as the view's
    /// `contentMode` says) instead of ``placeholder`` while the image loads, until the image or
    /// its first progressive preview arrives; a memory hit never shows it. Set it before
    /// ``load(_:)``, and again (or `nil`) for each row. Default `nil`.
    public var placeholderHash: HashPlaceholder?

    /// Shown when loading fails. Default: `nil` (the placeholder).
    public var failureImage: UIImage?

    /// The cross-dissolve for images that arrive after ``load(_:)``; `0` for none. Default 0.25 s.
    public var transitionDuration: TimeInterval = 0.25

    /// The controller underneath (reuse behaviour, the loader and its pipeline).
    package let controller: ImageViewLoadingController

    private var boundsObservation: NSKeyValueObservation?
    private var scaleObservation: NSKeyValueObservation?
    /// The key of this loader's own cross-dissolve: only it is ever removed.
    private static let transitionKey = "CachedImageViewLoader.transition"

    /// Creates a loader for `imageView` through `pipeline`.
    public init(imageView: UIImageView, pipeline: ImagePipeline = .shared) {
        self.imageView = imageView
        controller = ImageViewLoadingController(pipeline: pipeline)
        controller.onDisplay = { [weak self] display in self?.apply(display) }
        let layoutChanged = MainThreadCallback.make { [weak self] in self?.layoutDidChange() }
        boundsObservation = imageView.layer.observe(\.bounds, options: [.new]) { _, _ in layoutChanged() }
        // UIKit sets the layer's scale when the view joins a window (or the screen changes), with
        // no layout when the size stays: a view laid out at 1x before it had a window retargets
        // at the new scale (read from the change itself: the traits may not have caught up).
        scaleObservation = imageView.layer.observe(\.contentsScale, options: [.new]) { _, change in
            guard let scale = change.newValue else { return }
            MainThreadCallback.make { [weak self] in self?.controller.viewScaleDidChange(Double(scale)) }()
        }
        AppLifecycleObserver.install(for: pipeline)
    }

    /// Loads `url` (`nil` shows the placeholder).
    public func load(_ url: URL?) {
        guard let url else {
            controller.setRequest(nil)
            return
        }
        load(ImageRequest(url: url))
    }

    /// Loads `request`, decoded for the view's size when it has no `targetSize` (after the view's
    /// first layout when it has no size yet), filling or fitting as the view's `contentMode`
    /// draws it (`.scaleAspectFit`: fit; `.scaleAspectFill`, `.scaleToFill`: fill). A view that
    /// draws its image unscaled (`.center`, `.top`, ...) gets the pipeline's default cap instead.
    public func load(_ request: ImageRequest) {
        guard let imageView else { return }
        let bounds = imageView.bounds.size
        controller.setRequest(
            request, drawnIn: ImageContentMode(viewContentMode: imageView.contentMode.rawValue),
            width: Double(bounds.width), height: Double(bounds.height), scale: Double(Self.scale(of: imageView))
        )
    }

    /// The view's size may have changed: loads a request that waited for a size, or a larger
    /// size. Called automatically when the view's bounds change; cheap when nothing changed.
    public func layoutDidChange() {
        guard let imageView else { return }
        let bounds = imageView.bounds.size
        controller.viewDidLayout(width: Double(bounds.width), height: Double(bounds.height), scale: Double(Self.scale(of: imageView)))
    }

    /// Call from the cell's `prepareForReuse()`: stops or demotes the load and shows the placeholder.
    public func prepareForReuse() {
        controller.prepareForReuse()
    }

    private static func scale(of view: UIView) -> CGFloat {
        let scale = view.traitCollection.displayScale
        return scale > 0 ? scale : 1
    }

    private func apply(_ display: ImageViewLoadingController.Display) {
        guard let imageView else { return }
        imageView.layer.removeAnimation(forKey: Self.transitionKey)
        switch display {
        case .placeholder:
            imageView.image = placeholderHash?.image?.platformImage ?? placeholder
        case .failure:
            imageView.image = failureImage ?? placeholder
        case .image(let response, let animated):
            // Downsampled for the view: pixels per point of the screen, so its point size is the view's.
            let scale = ImageDisplayScale.scale(showing: response, displayScale: Double(Self.scale(of: imageView)))
            let image = response.image.platformImage(scale: CGFloat(scale))
            if animated, transitionDuration > 0 {
                let transition = CATransition()
                transition.type = .fade
                transition.duration = transitionDuration
                imageView.layer.add(transition, forKey: Self.transitionKey)
            }
            imageView.image = image
        }
    }
}
#endif
