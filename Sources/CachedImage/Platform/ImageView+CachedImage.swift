#if canImport(UIKit) && !os(watchOS) || canImport(AppKit) && !targetEnvironment(macCatalyst)
import CachedImageCore
import ObjectiveC
#if canImport(UIKit)
import UIKit

/// The image view the one-line form extends: `UIImageView` here, `NSImageView` on macOS.
public typealias PlatformImageView = UIImageView
#else
import AppKit

/// The image view the one-line form extends: `NSImageView` here, `UIImageView` on iOS, tvOS
/// and visionOS.
public typealias PlatformImageView = NSImageView
#endif

/// The one-line form on image views: `imageView.cachedImage.setImage(with: url)` on a
/// `UIImageView` or an `NSImageView`, the drop-in for Kingfisher's
/// `imageView.kf.setImage(with:)` and SDWebImage's `sd_setImage(with:)`.
///
/// ```swift
/// override func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
///     let cell = tableView.dequeueReusableCell(withIdentifier: "cell", for: indexPath)
///     cell.imageView?.cachedImage.setImage(with: avatars[indexPath.row], placeholder: UIImage(systemName: "person"))
///     return cell
/// }
/// ```
///
/// One ``CachedImageViewLoader`` is attached to each image view the first time, and every call
/// goes through it, so reuse needs no code: a new call replaces the previous load (cancelled,
/// or handed off at a lower priority: ``CachedImageViewLoader/reuseBehavior``) and a
/// reused view never shows the previous row's image. Sizing, the fade and the callbacks are the
/// loader's: decoded for the view's bounds and scale (an image view sized by its image, such as
/// `UITableViewCell.imageView`, loads after its first layout at the pipeline's cap), memory hits
/// in the same frame, a cross-dissolve for the rest. On macOS the same calls take `NSImage`s
/// and attach the AppKit ``CachedImageViewLoader``. Use ``CachedImageViewLoader`` directly for
/// full control.
@MainActor
public struct CachedImageViewNamespace {
    /// The image view the calls apply to.
    public let imageView: PlatformImageView

    /// Loads `url` into the image view (`nil`: the placeholder, nothing loads).
    ///
    /// - Parameters:
    ///   - placeholder: Shown at once and while loading. Default `nil` (an empty view).
    ///   - failureImage: Shown when loading fails. Default `nil` (the placeholder).
    ///   - pipeline: The pipeline to load through. Default ``ImagePipeline/shared``.
    ///   - transitionDuration: The cross-dissolve for images that arrive later; `0` for none.
    ///   - completion: Called once with the image shown or the failure (not for a load replaced
    ///     by a later call, nor for a `nil` URL, nor again for the request already shown).
    /// - Returns: The loader attached to the image view.
    @discardableResult
    public func setImage(
        with url: URL?,
        placeholder: PlatformImage? = nil,
        failureImage: PlatformImage? = nil,
        pipeline: ImagePipeline = .shared,
        transitionDuration: TimeInterval = 0.25,
        completion: (@MainActor (Result<ImageResponse, any Error>) -> Void)? = nil
    ) -> CachedImageViewLoader {
        setImage(
            with: url.map { ImageRequest(url: $0) }, placeholder: placeholder, failureImage: failureImage,
            pipeline: pipeline, transitionDuration: transitionDuration, completion: completion
        )
    }

    /// Loads `request` into the image view (`nil`: the placeholder, nothing loads), decoded for
    /// the view's size when it has no `targetSize`; the parameters are those of the `URL` form.
    @discardableResult
    public func setImage(
        with request: ImageRequest?,
        placeholder: PlatformImage? = nil,
        failureImage: PlatformImage? = nil,
        pipeline: ImagePipeline = .shared,
        transitionDuration: TimeInterval = 0.25,
        completion: (@MainActor (Result<ImageResponse, any Error>) -> Void)? = nil
    ) -> CachedImageViewLoader {
        let loader = attachedLoader(for: pipeline)
        loader.placeholder = placeholder
        loader.failureImage = failureImage
        loader.transitionDuration = transitionDuration
        var callbacks = ImageLoader.Callbacks()
        if let completion {
            callbacks.onSuccess = { completion(.success($0)) }
            callbacks.onFailure = { completion(.failure($0)) }
        }
        loader.controller.loader.callbacks = callbacks
        if let request {
            loader.load(request)
        } else {
            loader.load(nil as URL?)
        }
        return loader
    }

    /// Stops the image view's load and shows its placeholder (what a new call does anyway).
    public func cancel() {
        loader?.prepareForReuse()
    }

    /// The loader attached to the image view by an earlier call, if any.
    public var loader: CachedImageViewLoader? {
        objc_getAssociatedObject(imageView, CachedImageViewNamespace.loaderKey) as? CachedImageViewLoader
    }

    /// The image view's loader for `pipeline`: the attached one, or a new one attached now. A
    /// call with another pipeline hands the previous loader's load over as reuse does.
    private func attachedLoader(for pipeline: ImagePipeline) -> CachedImageViewLoader {
        if let loader, loader.controller.loader.pipeline === pipeline { return loader }
        loader?.prepareForReuse()
        let loader = CachedImageViewLoader(imageView: imageView, pipeline: pipeline)
        objc_setAssociatedObject(imageView, CachedImageViewNamespace.loaderKey, loader, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        return loader
    }

    /// The associated-object key: the address of a byte allocated once.
    private static let loaderKey = UnsafeRawPointer(UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1))
}

extension PlatformImageView {
    /// The one-line loading API: `imageView.cachedImage.setImage(with: url)`. See
    /// ``CachedImageViewNamespace``.
    public var cachedImage: CachedImageViewNamespace { CachedImageViewNamespace(imageView: self) }
}
#endif
