#if canImport(SwiftUI)
import CachedImageCore
import SwiftUI

/// An observable image loader for views of your own: what `CachedAsyncImage` is built on,
/// published to SwiftUI. Keep it in a `@StateObject` and attach it with
/// ``SwiftUI/View/loadImage(_:into:)`` (or ``SwiftUI/View/loadImage(from:into:)``), which loads
/// through the environment's pipeline and request defaults with `CachedAsyncImage`'s lifecycle:
///
/// ```swift
/// struct Avatar: View {
///     let url: URL?
///     @StateObject private var avatar = CachedImageModel()
///
///     var body: some View {
///         ZStack {
///             if let image = avatar.image {
///                 image.resizable().scaledToFill()
///             } else if avatar.phase.error != nil {
///                 Button("Retry") { avatar.retry() }
///             } else {
///                 ProgressView(value: avatar.phase.progress?.fraction ?? 0)
///             }
///         }
///         .loadImage(from: url, into: avatar)
///     }
/// }
/// ```
///
/// The guarantees are `CachedAsyncImage`'s, whatever order and number of `onAppear`,
/// `onDisappear` and `.task` calls SwiftUI delivers: a memory hit is published from `onAppear`
/// without a loading step, a success is never reloaded and a failure never retried by a
/// re-render or a branch change, and a view off screen drops its priority and then its load
/// (``offscreenBehavior``). Each change of ``phase`` publishes one `objectWillChange`, under
/// ``transaction`` (faded when ``fadeDuration`` is set and the image came from disk or the
/// network).
///
/// - One model per view: two views sharing a model would replace each other's request.
/// - When the URL changes, ``phase`` still describes the previous request until `.task(id:)`
///   loads the new one, so the first frame after the change shows the previous image (unlike
///   `CachedAsyncImage`, whose `body` looks the new request up itself). Where that frame
///   matters (a reused row), give the view the URL as its identity, `.id(url)`: a new model
///   starts empty.
///
/// An `ObservableObject`, so it works from iOS 15. Every publication changes what the view
/// shows (``phase``), so the `@Observable` macro's per-property tracking would save nothing.
@MainActor
public final class CachedImageModel: ObservableObject {
    /// The loader behind the model (its `onChange` is the model's).
    let loader: ImageLoader
    /// The animation of the next phase change.
    public var transaction = Transaction()
    /// When set, images from disk or the network fade in over this many seconds (memory hits
    /// appear at once). Default `nil`.
    public var fadeDuration: TimeInterval?
    /// Pixels per point of the image; `nil` (the default): `ImageDisplayScale`'s rule.
    public var scale: CGFloat?
    /// The screen's pixels per point: what sizes and processors in points are resolved at, and
    /// how a sized image lays out. ``SwiftUI/View/loadImage(_:into:)`` sets the environment's
    /// on every `body`; when you call ``load(_:)`` directly, the main screen's applies unless
    /// you set your view's. Default: the main screen's (1 where there is none).
    public var displayScale: CGFloat = CGFloat(MainScreen.scale ?? 1)
    /// The caller's request before the environment's defaults (it decides the layout size).
    private var ownRequest: ImageRequest?
    private var isConnected = false

    /// Creates a model; like a `@StateObject`'s, its initialiser runs anywhere.
    nonisolated public init() {
        loader = ImageLoader()
    }

    // MARK: What to show

    /// The current request's phase: its image (or, with ``keepsPreviousImage``, the previous
    /// request's image while this one loads), progress, error and a retry action. Reading it
    /// changes nothing.
    public var phase: CachedImagePhase {
        guard let request = loader.request else {
            return CachedImagePhase(state: .empty, image: nil, response: nil, retry: {})
        }
        let own = ownRequest ?? request
        return render(loader.phase, previous: loader.previousResponse(for: request), ownRequest: own, scale: pointScale(for: own))
    }

    /// The image to show, or `nil`: ``phase``'s image.
    public var image: Image? { phase.image }

    /// The request being shown (after the environment's defaults), if any.
    public var request: ImageRequest? { loader.request }

    // MARK: Options

    /// The pipeline ``load(_:)`` uses (from the next load on). ``SwiftUI/View/loadImage(_:into:)``
    /// sets the environment's on every `body`: use `.imagePipeline(_:)` there instead.
    public var pipeline: ImagePipeline {
        get { loader.pipeline }
        set { loader.pipeline = newValue }
    }

    /// Keep the previous request's image in ``image`` while a new one loads. Default `false`.
    public var keepsPreviousImage: Bool {
        get { loader.keepsPreviousImage }
        set { loader.keepsPreviousImage = newValue }
    }

    /// What happens when the view leaves the screen. Default ``OffscreenBehavior/automatic``.
    public var offscreenBehavior: OffscreenBehavior {
        get { loader.offscreenBehavior }
        set { loader.offscreenBehavior = newValue }
    }

    /// Start, success, failure and progress callbacks, each fired once per event.
    package var callbacks: ImageLoader.Callbacks {
        get { loader.callbacks }
        set { loader.callbacks = newValue }
    }

    // MARK: Actions

    /// Shows the image for `request` (at once when it is in memory). The current request again
    /// changes nothing; another replaces it.
    public func load(_ request: ImageRequest) {
        let request = request.resolvingPointSize(displayScale: Double(displayScale))
        load(request, ownRequest: request)
    }

    /// Shows the image at `url`; `nil` shows nothing and loads nothing, as `AsyncImage`.
    public func load(_ url: URL?) {
        load(ImageRequest(url: url))
    }

    /// Loads the current request again after a failure (asking the server, for a URL).
    public func retry() { loader.retry() }

    /// Stops loading; the phase returns to `.empty` (an image already shown stays).
    public func cancel() { loader.cancel() }

    /// Forgets the request and shows nothing.
    public func reset() { loader.reset() }

    /// The view came on screen. ``SwiftUI/View/loadImage(_:into:)`` calls it from `onAppear`;
    /// pairs with ``didDisappear()``, counted, in any order.
    public func didAppear() { loader.didAppear() }

    /// The view left the screen: ``offscreenBehavior`` applies.
    public func didDisappear() { loader.didDisappear() }

    // MARK: Internals

    /// Brings the loader in line with a view's environment and options. Changes nothing
    /// SwiftUI observes, so it is safe to call from `body`.
    func configure(
        pipeline: ImagePipeline,
        transaction: Transaction,
        keepsPreviousImage: Bool,
        offscreenBehavior: OffscreenBehavior,
        reportsProgress: Bool,
        fadeDuration: TimeInterval? = nil,
        callbacks: ImageLoader.Callbacks = ImageLoader.Callbacks()
    ) {
        self.transaction = transaction
        self.fadeDuration = fadeDuration
        loader.callbacks = callbacks
        loader.keepsPreviousImage = keepsPreviousImage
        loader.offscreenBehavior = offscreenBehavior
        loader.reportsProgress = reportsProgress
        loader.pipeline = pipeline
        connect()
    }

    /// Loads through `pipeline` on a screen of `displayScale`; safe to call from `body`.
    func attach(to pipeline: ImagePipeline, displayScale: CGFloat) {
        connect()
        self.displayScale = displayScale
        loader.pipeline = pipeline
    }

    /// Loads `request`, the environment's defaults applied to `ownRequest`.
    func load(_ request: ImageRequest, ownRequest: ImageRequest) {
        connect()
        #if canImport(UIKit) && !os(watchOS)
        AppLifecycleObserver.install(for: loader.pipeline)
        #elseif canImport(Darwin)
        MemoryPressureTrimmer.install(for: loader.pipeline)
        #if os(watchOS)
        BackgroundExecutionObserver.installOnce()
        #endif
        #endif
        self.ownRequest = ownRequest
        loader.load(request)
    }

    private func connect() {
        guard !isConnected else { return }
        isConnected = true
        loader.onChange = { [weak self] phase in self?.publish(phase) }
    }

    private func pointScale(for ownRequest: ImageRequest) -> CGFloat {
        CGFloat(ImageDisplayScale.scale(for: ownRequest, explicitScale: scale.map { Double($0) }, displayScale: Double(displayScale)))
    }

    /// What to render for `request` now (a memory hit shows in the very first frame), at
    /// `scale` pixels per point; an image decoded smaller than its source keeps its natural
    /// size when `ownRequest` (the caller's, before subtree defaults) asked for no size.
    func phase(for request: ImageRequest, ownRequest: ImageRequest, scale: CGFloat) -> CachedImagePhase {
        let phase = loader.phase(for: request)
        return render(phase, previous: loader.previousResponse(for: request), ownRequest: ownRequest, scale: scale)
    }

    /// `phase` (with `previous`, the image kept while it loads) ready for SwiftUI.
    private func render(
        _ phase: ImageLoader.Phase, previous: ImageResponse?, ownRequest: ImageRequest, scale: CGFloat
    ) -> CachedImagePhase {
        let phase = loader.shownPhase(phase) // a preview shows as a success
        let scaleOf = { (image: DecodedImage) in CGFloat(ImageDisplayScale.scale(Double(scale), for: image, request: ownRequest)) }
        let retry: @MainActor () -> Void = { [weak self] in self?.loader.retry() }
        switch phase {
        case .empty, .loading:
            let state: CachedImagePhase.State = phase.progress.map { .loading($0) } ?? .empty
            return CachedImagePhase(state: state, image: previous.flatMap { $0.image.swiftUIImage(scale: scaleOf($0.image)) }, response: nil, retry: retry)
        case .success(let response):
            guard let image = response.image.swiftUIImage(scale: scaleOf(response.image)) else {
                let error = ImagePipeline.Error.decodingFailed(url: response.request.url, underlying: NoDisplayableImage())
                return CachedImagePhase(state: .failure(error), image: nil, response: nil, retry: retry)
            }
            return CachedImagePhase(state: .success(image), image: image, response: response, retry: retry)
        case .failure(let error):
            return CachedImagePhase(state: .failure(error), image: nil, response: nil, retry: retry)
        }
    }

    private func publish(_ phase: ImageLoader.Phase) {
        var transaction = self.transaction
        if let fadeDuration, fadeDuration > 0, ImageLoader.fadesIn(to: phase) {
            transaction.animation = .easeInOut(duration: fadeDuration)
        }
        withTransaction(transaction) {
            objectWillChange.send()
        }
    }
}

extension CachedImageModel {
    /// The decoder returned an image SwiftUI cannot display (it holds no `CGImage`).
    struct NoDisplayableImage: Error, CustomStringConvertible {
        var description: String { "the decoder produced no displayable image" }
    }
}
#endif
