/// The state machine behind an image view that is not SwiftUI (a `UIImageView` in a reused table
/// or collection cell): what to display, when to animate, what to do on reuse. Plain Swift on the
/// main actor over ``ImageLoader``, so its behaviour is tested on Linux; the `UIImageView`
/// integration in `CachedImage` only applies ``Display`` values to the view.
///
/// Guarantees:
/// - **A reused view never shows the previous image**: ``setRequest(_:)`` and
///   ``prepareForReuse()`` display the placeholder (or the new image, from memory) before
///   returning, and results of a replaced request are dropped.
/// - **No placeholder flash for memory hits**: a memory hit is displayed synchronously, without
///   a transition.
/// - **Transitions** only for images that arrived later (disk or network): `animated: true`.
/// - **Reuse** cancels the old load (default) or lets it finish at a lower priority so scrolling
///   back finds it cached.
///
/// ```swift
/// let controller = ImageViewLoadingController()
/// controller.onDisplay = { display in apply(display) }   // placeholder, image or failure
/// controller.setRequest(ImageRequest(url: url), fittingWidth: 100, height: 100, scale: 3)
/// ```
@MainActor
public final class ImageViewLoadingController {
    /// What the view should show.
    public enum Display: Sendable {
        /// Nothing yet (loading, cancelled, or no request): the placeholder.
        case placeholder
        /// The image; `animated` is `true` when it arrived after the request was set (run the
        /// transition), `false` for a synchronous memory hit.
        case image(ImageResponse, animated: Bool)
        /// The load failed: the failure image.
        case failure(any Error)
    }

    /// What happens to a load in flight when the view is reused for another request.
    public enum ReuseBehavior: Sendable, Hashable {
        /// Cancel it (other requests for the same image keep the download going). The default.
        case cancel
        /// Let it finish at this priority, into the caches, behind visible images.
        case lowerPriority(to: ImageRequest.Priority)
    }

    /// The loader underneath (its pipeline, off-screen behaviour).
    public let loader: ImageLoader

    /// What ``prepareForReuse()`` and a new request do to a load in flight. Default `.cancel`.
    public var reuseBehavior: ReuseBehavior = .cancel

    /// Called on every change of ``display``.
    public var onDisplay: (@MainActor (Display) -> Void)?

    /// What the view shows now.
    public private(set) var display: Display = .placeholder

    /// The request being shown (after target-size fitting), or `nil`.
    public var request: ImageRequest? { loader.request }

    /// Loads handed off at a lower priority on reuse, until they finish.
    private(set) var handedOff: [Int: ImageTask] = [:]

    /// A request the controller sizes for the view: the caller's request and the target size
    /// chosen for it (`nil` until the view has a size).
    private struct Sizing {
        var base: ImageRequest
        var target: PixelSize?
    }

    private var sizing: Sizing?
    /// A larger size is loading while the current image stays on screen.
    private var isResizing = false

    /// Creates a controller loading through `pipeline`.
    public init(pipeline: ImagePipeline = .shared) {
        loader = ImageLoader(pipeline: pipeline, disappearBehavior: .lowerPriority(to: .low))
        loader.onChange = { [weak self] phase in self?.loaderDidChange(phase) }
    }

    /// Shows `request` (`nil`: the placeholder, nothing loads). A memory hit is displayed at
    /// once; otherwise the placeholder is displayed before this returns and the image follows.
    /// Setting the request already shown does nothing (a failure stays until ``retry()``).
    public func setRequest(_ request: ImageRequest?) {
        sizing = nil
        present(request)
    }

    /// Like ``setRequest(_:)``, decoding for a view of `width` x `height` points at `scale`
    /// pixels per point when the request has no target size of its own.
    ///
    /// A view with no size yet (an Auto Layout cell configured before its first layout) loads
    /// nothing: the placeholder shows until ``viewDidLayout(width:height:scale:)`` reports a
    /// size, so the image is never decoded at full size for want of one. Setting the same
    /// request again with another size is a layout change.
    public func setRequest(_ request: ImageRequest, fittingWidth width: Double, height: Double, scale: Double) {
        guard request.targetSize == nil else {
            setRequest(request)
            return
        }
        if let sizing, sizing.base == request {
            viewDidLayout(width: width, height: height, scale: scale)
            return
        }
        let target = Self.targetSize(width: width, height: height, scale: scale)
        sizing = Sizing(base: request, target: target)
        guard let target else {
            // Not laid out yet: wait for a size rather than decode at full size.
            handOffCurrentLoad()
            isResizing = false
            loader.reset()
            show(.placeholder)
            return
        }
        var sized = request
        sized.targetSize = target
        present(sized)
    }

    /// The view's size changed (its `layoutSubviews` ran). For a request sized by
    /// ``setRequest(_:fittingWidth:height:scale:)``: the first size starts the load; a larger
    /// size loads the image again at that size while the current image stays on screen (no
    /// placeholder flash; the sharper image replaces it without a transition); a size the
    /// current image already covers loads nothing.
    public func viewDidLayout(width: Double, height: Double, scale: Double) {
        guard var sizing, let target = Self.targetSize(width: width, height: height, scale: scale),
              target != sizing.target
        else { return }
        let isFirstSize = sizing.target == nil
        sizing.target = target
        self.sizing = sizing
        var sized = sizing.base
        sized.targetSize = target
        guard !isFirstSize, case .image = display, let loaded = loader.request?.targetSize else {
            present(sized)
            return
        }
        if target.width <= loaded.width, target.height <= loaded.height { return }
        if case .success(let response) = loader.phase(for: sized) {
            isResizing = false
            show(.image(response, animated: false))
            return
        }
        isResizing = true
        loader.load(sized)
    }

    /// The view is about to show another row: stop (or demote) the load and display the
    /// placeholder, so nothing of the previous row stays visible.
    public func prepareForReuse() {
        handOffCurrentLoad()
        sizing = nil
        isResizing = false
        loader.reset()
        show(.placeholder)
    }

    /// Retries a failed load.
    public func retry() {
        loader.retry()
    }

    /// The pixel size of a `width` x `height` point view at `scale`, rounded up; `nil` for an
    /// empty view (not laid out yet: decode at full size rather than at zero).
    public static func targetSize(width: Double, height: Double, scale: Double) -> PixelSize? {
        guard width > 0, height > 0, scale > 0, width.isFinite, height.isFinite, scale.isFinite else { return nil }
        let w = (width * scale).rounded(.up)
        let h = (height * scale).rounded(.up)
        guard w < Double(Int32.max), h < Double(Int32.max) else { return nil }
        return PixelSize(width: Int(w), height: Int(h))
    }

    // MARK: Internals

    private func present(_ request: ImageRequest?) {
        isResizing = false
        guard let request else {
            handOffCurrentLoad()
            loader.reset()
            show(.placeholder)
            return
        }
        if loader.isCurrent(request), loader.phase.isLoading || loader.phase.response != nil || loader.phase.error != nil {
            return
        }
        handOffCurrentLoad()
        if case .success(let response) = loader.phase(for: request) {
            show(.image(response, animated: false))
            return
        }
        show(.placeholder)
        loader.load(request)
    }

    private func handOffCurrentLoad() {
        guard case .lowerPriority(let priority) = reuseBehavior,
              case .loading = loader.phase,
              var request = loader.task?.request
        else { return }
        // Join the shared job (the load's own request: a retry's options name its job) at the
        // lower priority before the loader leaves it, so the download carries on into the caches.
        request.priority = min(priority, request.priority)
        let task = loader.pipeline.imageTask(with: request)
        handedOff[task.id] = task
        Task { [weak self] in
            _ = try? await task.response
            self?.handedOff[task.id] = nil
        }
    }

    private func loaderDidChange(_ phase: ImageLoader.Phase) {
        switch loader.shownPhase(phase) {
        case .empty, .loading:
            if isResizing { return } // the current image stays while the larger one loads
            if case .placeholder = display { return } // progress ticks change nothing on screen
            show(.placeholder)
        case .success(let response) where response.isPreview && isResizing:
            return // a preview is blurrier than the image on screen
        case .success(let response):
            // A resize shows the same picture, sharper: no transition; nor does a preview
            // (``ImageLoader/preview``), which shows as soon as it arrives.
            let animated = !isResizing && response.source != .memory && !response.isPreview
            isResizing = false
            show(.image(response, animated: animated))
        case .failure(let error):
            if isResizing {
                isResizing = false // keep the image on screen rather than replace it with a failure
                return
            }
            show(.failure(error))
        }
    }

    private func show(_ display: Display) {
        self.display = display
        onDisplay?(display)
    }
}
