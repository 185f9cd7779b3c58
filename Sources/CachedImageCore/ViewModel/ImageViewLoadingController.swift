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
package final class ImageViewLoadingController {
    /// What the view should show.
    package enum Display: Sendable {
        /// Nothing yet (loading, cancelled, or no request): the placeholder.
        case placeholder
        /// The image; `animated` is `true` when it arrived after the request was set (run the
        /// transition), `false` for a synchronous memory hit.
        case image(ImageResponse, animated: Bool)
        /// The load failed: the failure image.
        case failure(any Error)

        var isPlaceholder: Bool {
            if case .placeholder = self { return true }
            return false
        }
    }

    /// What happens to a load in flight when the view is reused for another request.
    package enum ReuseBehavior: Sendable, Hashable {
        /// Cancel it (other requests for the same image keep the download going). The default.
        case cancel
        /// Let it finish at this priority, into the caches, behind visible images.
        case lowerPriority(to: ImageRequest.Priority)
    }

    /// The loader underneath (its pipeline, off-screen behaviour).
    package let loader: ImageLoader

    /// What ``prepareForReuse()`` and a new request do to a load in flight. Default `.cancel`.
    package var reuseBehavior: ReuseBehavior = .cancel

    /// Called on every change of ``display``.
    package var onDisplay: (@MainActor (Display) -> Void)?
    /// Called with the image's size in pixels as soon as the first bytes of its body give it
    /// (before the image; ``ImageLoadingProgress/pixelSize``), or with the image's own size when
    /// it arrives whole (from the caches: as it shows, after processors), once per URL and size
    /// the view shows (again after ``prepareForReuse()``): a self-sizing cell sizes itself with it.
    package var onImageSize: (@MainActor (PixelSize) -> Void)?
    /// The request and size last reported to ``onImageSize``.
    private var reportedSize: (request: ImageRequest?, size: PixelSize)?

    /// What the view shows now.
    package private(set) var display: Display = .placeholder

    /// The request being shown (after target-size fitting), or `nil`.
    package var request: ImageRequest? { loader.request }

    /// Loads handed off at a lower priority on reuse, until they finish.
    private(set) var handedOff: [Int: ImageTask] = [:]

    /// A request the controller sizes for the view: the caller's request and the size its
    /// layout gave (`nil` until a layout gives one).
    private struct Sizing {
        var base: ImageRequest
        var layout: LayoutTarget?
        /// Loading (or shown) at the pipeline's cap: no layout gave a size after the first one.
        var isAtCap = false
        /// The view's last size in points, for a scale change that comes without a layout.
        var points: (width: Double, height: Double)
        /// The scale the request is sized at: the highest the view reported for it (see
        /// ``ViewScaleRule``).
        var scale: Double
    }

    private var sizing: Sizing?
    /// Voids an end-of-turn check armed for an earlier request.
    private var sizingToken = 0
    /// A larger size is loading while the current image stays on screen.
    private var isResizing = false

    /// Creates a controller loading through `pipeline`.
    package convenience init(pipeline: ImagePipeline = .shared) {
        self.init(pipeline: pipeline, scheduler: SystemViewModelScheduler())
    }

    /// Creates a controller whose end-of-layout checks run on `scheduler` (tests pass one over
    /// their own clock).
    package init(pipeline: ImagePipeline, scheduler: any ViewModelScheduler) {
        loader = ImageLoader(pipeline: pipeline, offscreenBehavior: .lowerPriority(to: .low), scheduler: scheduler)
        loader.onChange = { [weak self] phase in self?.loaderDidChange(phase) }
    }

    /// Shows `request` (`nil`: the placeholder, nothing loads). A memory hit is displayed at
    /// once; otherwise the placeholder is displayed before this returns and the image follows.
    /// Setting the request already shown does nothing, except after a failure: a cell
    /// configured again (`reconfigureRows`) asks again.
    package func setRequest(_ request: ImageRequest?) {
        sizing = nil
        sizingToken += 1
        present(request)
    }

    /// Like ``setRequest(_:)``, decoding for a view of `width` x `height` points at `scale`
    /// pixels per point when the request has no target size of its own (a request sized in
    /// points, ``ImageRequest/targetSize``, is decoded for its points at `scale`).
    ///
    /// A dimension of zero (or not finite) is unknown, never a reason to wait forever: with one
    /// dimension known, the image is decoded to fit it (a 320x0 view loads 320 points wide);
    /// with neither, the controller waits for the view's first layout (the end of the current
    /// main-actor turn, or ``viewDidLayout(width:height:scale:)``), then loads at the
    /// pipeline's cap and lets the image size the view (`UITableViewCell.imageView`, an
    /// arranged subview sized by its image). Setting the same request again with another size
    /// is a layout change.
    package func setRequest(_ request: ImageRequest, fittingWidth width: Double, height: Double, scale: Double) {
        guard request.targetPixelSize == nil || request.pointSize != nil, !request.options.contains(.decodeFullResolution) else {
            // Sized by itself: its points (a size, processors) at the view's scale.
            setRequest(request.resolvingPointSize(displayScale: ViewScaleRule.scale(reported: scale, current: nil)))
            return
        }
        if let sizing, sizing.base == request {
            askAgainAfterFailure()
            viewDidLayout(width: width, height: height, scale: scale)
            return
        }
        sizingToken += 1
        let scale = ViewScaleRule.scale(reported: scale, current: nil)
        let layout = layoutTarget(for: request, width: width, height: height, scale: scale)
        sizing = Sizing(base: request, layout: layout, points: (width, height), scale: scale)
        guard let layout else {
            // No size yet: wait for the layout that may give one, then load at the cap.
            handOffCurrentLoad()
            isResizing = false
            loader.reset()
            show(.placeholder)
            let token = sizingToken
            loader.scheduler.schedule(after: 0) { [weak self] in
                guard let self, token == self.sizingToken else { return }
                self.loadAtCapIfUnsized()
            }
            return
        }
        present(layout.applied(to: request.resolvingPointSize(displayScale: scale)))
    }

    /// Like ``setRequest(_:fittingWidth:height:scale:)`` for a view that draws its image in
    /// `mode` (from UIKit's `contentMode` or AppKit's `imageScaling`): a request without a
    /// target size takes that mode; `nil` (a view drawing its image unscaled) loads the request
    /// as is, within the pipeline's cap.
    package func setRequest(_ request: ImageRequest, drawnIn mode: ImageContentMode?, width: Double, height: Double, scale: Double) {
        var request = request
        if request.targetPixelSize == nil {
            guard let mode else {
                setRequest(request)
                return
            }
            request.contentMode = mode
        }
        setRequest(request, fittingWidth: width, height: height, scale: scale)
    }

    /// The view's size or scale changed (its `layoutSubviews` ran, it joined a window). For a
    /// request sized by ``setRequest(_:fittingWidth:height:scale:)``: the first size starts the
    /// load (a layout with no size at all loads at the pipeline's cap); a larger size or scale
    /// loads the image again while the current image stays on screen (no placeholder flash;
    /// the sharper image replaces it without a transition); a size the current image already
    /// covers loads nothing. A load still in flight is retargeted: the new size joins its
    /// download, which is never restarted.
    package func viewDidLayout(width: Double, height: Double, scale: Double) {
        guard var sizing else { return }
        sizing.points = (width, height)
        sizing.scale = ViewScaleRule.scale(reported: scale, current: sizing.scale)
        self.sizing = sizing
        guard let layout = layoutTarget(for: sizing.base, width: width, height: height, scale: sizing.scale) else {
            loadAtCapIfUnsized()
            return
        }
        guard layout != sizing.layout else { return }
        let wasSized = sizing.layout != nil || sizing.isAtCap
        sizing.layout = layout
        self.sizing = sizing
        let sized = layout.applied(to: sizing.base.resolvingPointSize(displayScale: sizing.scale))
        guard wasSized, case .image(let shown, _) = display else {
            present(sized, handingOff: false)
            return
        }
        if shown.isPreview, loader.lowResolution != nil {
            // The request's smaller image covers no size: the full image is due at the new one,
            // the smaller image staying on screen meanwhile (a failure is not asked again by a
            // layout: retries and recovery do that).
            if case .failure = loader.phase { return }
            loader.load(sized)
            return
        }
        // A progressive scan covers no size either: the sharper image loads behind it.
        if !shown.isPreview, Self.covers(shown, sized, cap: loader.pipeline.configuration.maximumDecodedPixelSize) { return }
        if case .success(let response) = loader.phase(for: sized) {
            isResizing = false
            show(.image(response, animated: false))
            return
        }
        isResizing = true
        loader.load(sized)
    }
    /// The view's scale changed with no layout: it joined a window (a view laid out outside
    /// one is laid out at 1x, and joining a 3x window changes no size, so no layout follows),
    /// moved to another screen, or its traits changed. Retargets the view's last laid-out size
    /// at `scale` as ``viewDidLayout(width:height:scale:)`` does: a download in flight is
    /// joined at the sharper size, never restarted; an image already shown stays on screen
    /// while the sharper one decodes. A lower scale (the view left its window) changes
    /// nothing: the sharper decode covers it (``ViewScaleRule``).
    public func viewScaleDidChange(_ scale: Double) {
        guard let sizing else { return }
        viewDidLayout(width: sizing.points.width, height: sizing.points.height, scale: scale)
    }

    /// The view is about to show another row: stop (or demote) the load and display the
    /// placeholder, so nothing of the previous row stays visible.
    package func prepareForReuse() {
        handOffCurrentLoad()
        sizing = nil
        sizingToken += 1
        isResizing = false
        reportedSize = nil
        loader.reset()
        show(.placeholder)
    }

    /// Retries a failed load.
    package func retry() {
        loader.retry()
    }

    /// The pixel size of a `width` x `height` point view at `scale`, rounded up; `nil` when
    /// either dimension is unknown (zero or not finite). See
    /// ``setRequest(_:fittingWidth:height:scale:)`` for what a view with one unknown dimension loads.
    package static func targetSize(width: Double, height: Double, scale: Double) -> PixelSize? {
        guard let w = LayoutTarget.pixels(width, scale), let h = LayoutTarget.pixels(height, scale) else { return nil }
        return PixelSize(width: w, height: h)
    }

    // MARK: Internals

    /// What a view of `width` x `height` points at `scale` decodes `request` at: its size in
    /// points (``ImageRequest/targetSize``) at the view's scale, else the view's size.
    private func layoutTarget(for request: ImageRequest, width: Double, height: Double, scale: Double) -> LayoutTarget? {
        let points = request.pointSize.map { ($0.width, $0.height) } ?? (width, height)
        return LayoutTarget(width: points.0, height: points.1, scale: scale, unknownSide: unknownSide)
    }

    /// Shows `request`; `handingOff`: a load in flight for another row is handed off as
    /// ``reuseBehavior`` says (a resize of the same row hands nothing off: its new size joins
    /// the download).
    private func present(_ request: ImageRequest?, handingOff: Bool = true) {
        isResizing = false
        if request?.url != loader.request?.url { reportedSize = nil }
        guard let request else {
            handOffCurrentLoad()
            loader.reset()
            show(.placeholder)
            return
        }
        if loader.isCurrent(request) {
            if loader.phase.error != nil {
                askAgainAfterFailure()
                return
            }
            if loader.phase.isLoading || loader.phase.response != nil { return }
        }
        if handingOff { handOffCurrentLoad() }
        if case .success(let response) = loader.phase(for: request) {
            // (An image kept for display is revalidated behind it by the loader.)
            show(.image(response, animated: false))
            return
        }
        // The same row retargeted while its placeholder shows: nothing changes on screen.
        if handingOff || !display.isPlaceholder { show(.placeholder) }
        loader.load(request)
    }

    /// The cell was configured again with the request that failed: ask again (a failure the
    /// pipeline remembers, such as a `404`, answers again without a request; a stale image
    /// whose revalidation failed stays on screen and is revalidated again).
    private func askAgainAfterFailure() {
        guard loader.phase.error != nil, let request = loader.request else { return }
        loader.askAgain(request)
    }

    /// No layout gave a size: load at the pipeline's cap (the request as is) and let the image
    /// size the view. Once per request.
    private func loadAtCapIfUnsized() {
        guard var sizing, sizing.layout == nil, !sizing.isAtCap else { return }
        sizing.isAtCap = true
        self.sizing = sizing
        present(sizing.base.resolvingPointSize(displayScale: sizing.scale), handingOff: false)
    }

    /// The side, in pixels, of a dimension the layout does not give: the cap's longer side
    /// (the cap bounds the decode anyway), or no bound at all.
    private var unknownSide: Int {
        loader.pipeline.configuration.maximumDecodedPixelSize.map { max($0.width, $0.height) } ?? LayoutTarget.unbounded
    }

    /// Whether `shown` is already as sharp as a decode for `request` would be: the decode
    /// would be no larger in either dimension (an image at its source size, or at the cap,
    /// covers every view).
    /// Processors that differ (points resolved at another scale) never cover.
    static func covers(_ shown: ImageResponse, _ request: ImageRequest, cap: PixelSize?) -> Bool {
        guard shown.request.processorChain == request.processorChain else { return false }
        let shownTarget = shown.request.targetPixelSize
        guard let target = request.targetPixelSize else { return shownTarget == nil }
        guard let source = shown.image.sourcePixelSize else {
            guard let shownTarget else { return true }
            return target.width <= shownTarget.width && target.height <= shownTarget.height
        }
        let wanted = request.decodingTarget(maximumSize: cap).decodedSize(of: source)
        return wanted.width <= shown.image.pixelSize.width && wanted.height <= shown.image.pixelSize.height
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
        reportSize(of: phase)
        if case .failure = phase, isResizing {
            // The larger size failed (even with a smaller image kept): the image on screen stays.
            isResizing = false
            return
        }
        switch loader.shownPhase(phase) {
        case .empty, .loading:
            if isResizing { return } // the current image stays while the larger one loads
            if case .placeholder = display { return } // progress ticks change nothing on screen
            show(.placeholder)
        case .success(let response) where response.isPreview && isResizing:
            return // a preview is blurrier than the image on screen
        case .success(let response):
            // A resize shows the same picture, sharper: no transition; nor does a preview
            // (``ImageLoader/preview``), which shows as soon as it arrives, nor a stale image
            // the server confirmed (or could not: the error is reported, the image stays).
            let animated = !isResizing && response.source != .memory && !response.isPreview && !isShowing(samePictureAs: response)
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

    /// Whether the image on screen is `response`'s picture (a stale one confirmed by a `304`).
    private func isShowing(samePictureAs response: ImageResponse) -> Bool {
        guard case .image(let shown, _) = display else { return false }
        return shown.request.url == response.request.url && !ImageLoader.isChanged(from: shown, to: response)
    }

    private func show(_ display: Display) {
        if case .image(let response, _) = display { reportSize(of: .success(response)) }
        self.display = display
        onDisplay?(display)
    }

    /// Calls ``onImageSize`` with the size the phase gives first: read from the body's first
    /// bytes while loading, or the image's own when it arrives whole.
    private func reportSize(of phase: ImageLoader.Phase) {
        let size: PixelSize?
        switch phase {
        case .loading(let progress): size = progress.pixelSize
        case .success(let response) where !response.isPreview: size = Self.shownSize(of: response.image)
        case .success, .empty, .failure: size = nil
        }
        guard let size, reportedSize?.request?.url != loader.request?.url || reportedSize?.size != size else { return }
        reportedSize = (loader.request, size)
        onImageSize?(size)
    }

    /// The size of the image `image` was decoded from, as it shows: its source's (before a
    /// downsample), turned as the decode turned it (EXIF orientation 5 to 8 swap the stored
    /// sides); the image's own when processors made it.
    static func shownSize(of image: DecodedImage) -> PixelSize {
        guard let source = image.sourcePixelSize else { return image.pixelSize }
        let decoded = image.pixelSize
        let turned = (source.width > source.height && decoded.width < decoded.height)
            || (source.width < source.height && decoded.width > decoded.height)
        return turned ? PixelSize(width: source.height, height: source.width) : source
    }
}
