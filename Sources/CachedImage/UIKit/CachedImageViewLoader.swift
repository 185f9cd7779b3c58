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
/// view's bounds at its screen's scale (full size while the view has no size yet). Memory hits
/// show in the same frame without a transition; images that arrive later cross-dissolve
/// (``transitionDuration``). The state machine is ``ImageViewLoadingController``.
@MainActor
public final class CachedImageViewLoader {
    /// The view images go into (held weakly).
    public private(set) weak var imageView: UIImageView?

    /// Shown while loading and when there is no request. Default: `nil` (an empty view).
    public var placeholder: UIImage?

    /// Shown when loading fails. Default: `nil` (the placeholder).
    public var failureImage: UIImage?

    /// The cross-dissolve for images that arrive after ``load(_:)``; `0` for none. Default 0.25 s.
    public var transitionDuration: TimeInterval = 0.25

    /// The controller underneath (reuse behaviour, the loader and its pipeline).
    public let controller: ImageViewLoadingController

    /// Creates a loader for `imageView` through `pipeline`.
    public init(imageView: UIImageView, pipeline: ImagePipeline = .shared) {
        self.imageView = imageView
        controller = ImageViewLoadingController(pipeline: pipeline)
        controller.onDisplay = { [weak self] display in self?.apply(display) }
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

    /// Loads `request`, decoded for the view's size when it has no `targetSize`.
    public func load(_ request: ImageRequest) {
        guard let imageView else { return }
        let bounds = imageView.bounds.size
        controller.setRequest(request, fittingWidth: Double(bounds.width), height: Double(bounds.height), scale: Double(Self.scale(of: imageView)))
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
        imageView.layer.removeAllAnimations()
        switch display {
        case .placeholder:
            imageView.image = placeholder
        case .failure:
            imageView.image = failureImage ?? placeholder
        case .image(let response, let animated):
            // Downsampled for the view: pixels per point of the screen, so its point size is the view's.
            let scale = response.request.targetSize == nil ? 1 : Self.scale(of: imageView)
            let image = response.image.platformImage(scale: scale)
            if animated, transitionDuration > 0 {
                UIView.transition(with: imageView, duration: transitionDuration, options: [.transitionCrossDissolve, .allowUserInteraction]) {
                    imageView.image = image
                }
            } else {
                imageView.image = image
            }
        }
    }
}
#endif
