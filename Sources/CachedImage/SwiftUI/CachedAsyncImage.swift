#if canImport(SwiftUI)
import CachedImageCore
import SwiftUI

/// A drop-in replacement for SwiftUI's `AsyncImage` that caches: in memory (decoded), on disk
/// (original bytes, across launches) and with HTTP revalidation, through an ``ImagePipeline``.
///
/// The initialisers match `AsyncImage`'s, so renaming the type is the whole migration:
///
/// ```swift
/// CachedAsyncImage(url: url)
/// CachedAsyncImage(url: url) { image in image.resizable() } placeholder: { ProgressView() }
/// CachedAsyncImage(url: url, transaction: Transaction(animation: .default)) { phase in ... }
/// ```
///
/// Also: `CachedAsyncImage(url: url) { image in image.resizable() }` (a default placeholder), and
/// each form with an ``ImageRequest`` instead of a URL; a trailing closure is never ambiguous.
///
/// What `AsyncImage` does not do:
/// - **No placeholder flash**: when the image is in the memory cache, the very first frame shows
///   it (`AsyncImage` always starts empty).
/// - **Requests**: ``init(request:scale:transaction:content:)`` takes an ``ImageRequest`` with a
///   priority, a target size (decoded downsampled) and cache options.
/// - **Reused cells**: loading is keyed to the request (`task(id:)`), so a recycled `List` row
///   never shows its previous image. Leaving the screen lowers the load's priority at once; a
///   view still off screen half a second later cancels its load and lets go of its image (it
///   comes back from the memory cache in the frame the view reappears in); a download other
///   views want keeps going. See ``offscreenBehavior(_:)``.
/// - **Lifecycle**: the loading modifiers sit on one stable container, and the loader is
///   idempotent, so a content closure that switches branches (one view for `.failure`, another
///   for `.success`) never reloads: a failure stays until `phase.retry()` (as with `AsyncImage`,
///   nothing retries it automatically) and a success is never loaded twice.
/// - **Keep the previous image** while a new URL loads: ``keepsPreviousImageWhileLoading(_:)``.
/// - **Progress and retry**: ``init(request:scale:transaction:phaseContent:)`` (the other
///   initialisers publish no progress, so a download re-renders nothing until it ends).
/// - **Scale**: a request with a `targetSize` (in pixels) and no explicit `scale` lays out in
///   points at the screen's `displayScale`, as ``CachedImageViewLoader`` does.
/// - The pipeline comes from the environment: `.imagePipeline(_:)`, `ImagePipeline.shared` by default.
/// - Default request options for a subtree (a maximum pixel size, cache options, priority):
///   `.imageRequestDefaults(_:)`, applied where the request leaves them unset.
@MainActor
public struct CachedAsyncImage<Content: View>: View {
    @Environment(\.imagePipeline) private var pipeline
    @Environment(\.imageRequestDefaults) private var requestDefaults
    @Environment(\.displayScale) private var displayScale
    @StateObject private var model = CachedImageModel()
    /// The laid-out size, for requests with no `targetSize` (see `LayoutSizingRecorder`).
    @StateObject private var layoutSizing = LayoutSizingRecorder()

    private let request: ImageRequest
    /// Pixels per point of the image; `nil`: `ImageDisplayScale`'s rule.
    private let scale: CGFloat?
    private let transaction: Transaction
    private let content: (CachedImagePhase) -> Content
    private let showsDefaultPlaceholder: Bool
    /// Whether the content can show progress (only the ``CachedImagePhase`` form can).
    private let reportsProgress: Bool
    private var keepsPreviousImage = false
    private var offscreenBehavior: OffscreenBehavior = .automatic
    /// The chained options (`.fade`, `.priority`, `.processors`, `.onSuccess`...).
    var options = CachedAsyncImageOptions()

    // MARK: AsyncImage's initialisers

    /// Shows the image at `url`, with a neutral placeholder until it loads (and on failure),
    /// like `AsyncImage(url:scale:)`.
    ///
    /// - Parameters:
    ///   - url: The image's URL; `nil` shows the placeholder and loads nothing, as `AsyncImage`.
    ///   - scale: Pixels per point of the image (2 for an `@2x` asset).
    public init(url: URL?, scale: CGFloat = 1) where Content == Image {
        self.init(request: ImageRequest(url: url), scale: scale, transaction: Transaction(), showsDefaultPlaceholder: true) { phase in
            phase.image ?? Image(systemName: "photo")
        }
    }

    /// Shows `content` with the loaded image, and `placeholder` until then (and on failure),
    /// like `AsyncImage(url:scale:content:placeholder:)`.
    public init<I: View, P: View>(
        url: URL?,
        scale: CGFloat = 1,
        @ViewBuilder content: @escaping (Image) -> I,
        @ViewBuilder placeholder: @escaping () -> P
    ) where Content == _ConditionalContent<I, P> {
        self.init(request: ImageRequest(url: url), scale: scale, content: content, placeholder: placeholder)
    }

    /// Renders each phase of the load with `content`, applying `transaction` when the phase
    /// changes, like `AsyncImage(url:scale:transaction:content:)`.
    public init(
        url: URL?,
        scale: CGFloat = 1,
        transaction: Transaction = Transaction(),
        @ViewBuilder content: @escaping (AsyncImagePhase) -> Content
    ) {
        self.init(request: ImageRequest(url: url), scale: scale, transaction: transaction, content: content)
    }

    /// Like ``init(url:scale:)``, for an ``ImageRequest``: the image as loaded, with a neutral
    /// placeholder until then (and on failure).
    ///
    /// ```swift
    /// CachedAsyncImage(request: ImageRequest(url: url, targetSize: CGSize(width: 200, height: 200)))
    /// ```
    ///
    /// With a size of its own (``ImageRequest/targetSize``, ``ImageRequest/targetPixelSize``, a
    /// leading resize) and no `scale`, the image lays out in points at the screen's scale
    /// (200x200 points are 600x600 pixels on a 3x screen).
    public init(request: ImageRequest, scale: CGFloat? = nil) where Content == Image {
        self.init(request: request, scale: scale, transaction: Transaction(), showsDefaultPlaceholder: true) { phase in
            phase.image ?? Image(systemName: "photo")
        }
    }

    // MARK: Image only, with a default placeholder

    /// Shows `content` with the loaded image and a neutral placeholder until then (and on
    /// failure), the form many tutorials use:
    ///
    /// ```swift
    /// CachedAsyncImage(url: url) { image in image.resizable().scaledToFit() }
    /// ```
    ///
    /// Disfavoured: a closure that would also compile with ``init(url:scale:transaction:content:)``
    /// (say `{ _ in Color.red }`) gets `AsyncImage`'s `AsyncImagePhase` form, as with `AsyncImage`.
    @_disfavoredOverload
    public init<I: View>(
        url: URL?,
        scale: CGFloat = 1,
        @ViewBuilder content: @escaping (Image) -> I
    ) where Content == _ConditionalContent<I, Color> {
        self.init(request: ImageRequest(url: url), scale: scale, content: content)
    }

    /// Like ``init(url:scale:content:)``, for an ``ImageRequest``:
    /// `CachedAsyncImage(request: request) { image in image.resizable() }`.
    @_disfavoredOverload
    public init<I: View>(
        request: ImageRequest,
        scale: CGFloat? = nil,
        @ViewBuilder content: @escaping (Image) -> I
    ) where Content == _ConditionalContent<I, Color> {
        self.init(request: request, scale: scale, transaction: Transaction(), showsDefaultPlaceholder: false) { phase in
            if let image = phase.image {
                return ViewBuilder.buildEither(first: content(image))
            }
            return ViewBuilder.buildEither(second: Self.defaultPlaceholder)
        }
    }

    /// The placeholder of the initialisers that take none: a light gray fill, like `AsyncImage`'s.
    static var defaultPlaceholder: Color { Color.gray.opacity(0.2) }

    // MARK: Requests

    /// Like ``init(url:scale:transaction:content:)``, for an ``ImageRequest``: set its
    /// `targetSize` to decode downsampled, its `priority`, or cache `options`.
    ///
    /// ```swift
    /// CachedAsyncImage(request: ImageRequest(url: url, targetPixelSize: PixelSize(width: 300, height: 300))) { phase in
    ///     switch phase {
    ///     case .success(let image): image.resizable()
    ///     default: Color.gray
    ///     }
    /// }
    /// ```
    ///
    /// Disfavoured: a trailing closure that compiles with both this initialiser and
    /// ``init(request:scale:transaction:phaseContent:)`` (one that reads only `phase.image` and
    /// `phase.error`, which both phases have) gets the ``CachedImagePhase`` one, so it is never
    /// ambiguous. A closure that switches over `AsyncImagePhase`'s cases still lands here.
    @_disfavoredOverload
    public init(
        request: ImageRequest,
        scale: CGFloat? = nil,
        transaction: Transaction = Transaction(),
        @ViewBuilder content: @escaping (AsyncImagePhase) -> Content
    ) {
        self.init(request: request, scale: scale, transaction: transaction, showsDefaultPlaceholder: false) { phase in
            content(phase.asyncImagePhase)
        }
    }

    /// Like ``init(url:scale:content:placeholder:)``, for an ``ImageRequest``.
    public init<I: View, P: View>(
        request: ImageRequest,
        scale: CGFloat? = nil,
        @ViewBuilder content: @escaping (Image) -> I,
        @ViewBuilder placeholder: @escaping () -> P
    ) where Content == _ConditionalContent<I, P> {
        self.init(request: request, scale: scale, transaction: Transaction(), showsDefaultPlaceholder: false) { phase in
            if let image = phase.image {
                return ViewBuilder.buildEither(first: content(image))
            }
            return ViewBuilder.buildEither(second: placeholder())
        }
    }

    /// Renders a ``CachedImagePhase``: download progress, the error with a retry action, and the
    /// previous image kept while loading.
    ///
    /// ```swift
    /// CachedAsyncImage(request: request) { phase in
    ///     if let image = phase.image {
    ///         image.resizable()
    ///     } else if phase.error != nil {
    ///         Button("Retry") { phase.retry() }
    ///     } else {
    ///         ProgressView(value: phase.progress?.fraction ?? 0)
    ///     }
    /// }
    /// ```
    public init(
        request: ImageRequest,
        scale: CGFloat? = nil,
        transaction: Transaction = Transaction(),
        @ViewBuilder phaseContent: @escaping (CachedImagePhase) -> Content
    ) {
        self.init(
            request: request, scale: scale, transaction: transaction, showsDefaultPlaceholder: false,
            reportsProgress: true, content: phaseContent
        )
    }

    private init(
        request: ImageRequest,
        scale: CGFloat?,
        transaction: Transaction,
        showsDefaultPlaceholder: Bool,
        reportsProgress: Bool = false,
        content: @escaping (CachedImagePhase) -> Content
    ) {
        self.request = request
        self.scale = scale
        self.transaction = transaction
        self.showsDefaultPlaceholder = showsDefaultPlaceholder
        self.reportsProgress = reportsProgress
        self.content = content
    }

    // MARK: Options

    /// Keeps showing the previous image while a new URL loads, instead of the placeholder
    /// (a gallery paging between photos, an avatar whose URL changes). Default: off.
    public func keepsPreviousImageWhileLoading(_ keeps: Bool = true) -> CachedAsyncImage {
        var copy = self
        copy.keepsPreviousImage = keeps
        return copy
    }

    /// What happens when the view leaves the screen. Default ``OffscreenBehavior/automatic``:
    /// the load drops to `.low` at once, and if the view is still off screen half a second later
    /// its load is cancelled and its image let go (a fling costs little; a quick scroll back
    /// finds its loads still running). An image the memory cache holds is let go at once and
    /// comes back from memory in the first frame. `.lowerPriority(to:)` keeps loading and keeps the image;
    /// `.cancel` lets go as soon as the view is off screen.
    public func offscreenBehavior(_ behavior: OffscreenBehavior) -> CachedAsyncImage {
        var copy = self
        copy.offscreenBehavior = behavior
        return copy
    }

    // MARK: Body

    public var body: some View {
        let model = self.model
        // A size in points becomes pixels at this view's display scale.
        let ownRequest = options.applied(to: self.request).resolvingPointSize(displayScale: Double(displayScale))
        let requestDefaults = self.requestDefaults.resolvingPointSize(displayScale: Double(displayScale))
        let layoutSizing = self.layoutSizing
        // The laid-out size decides; the subtree's defaults cap it (LayoutDecodeSize, in core).
        let request = layoutSizing.request(for: ownRequest, defaults: requestDefaults)
        layoutSizing.configure(
            for: model, request: ownRequest, displayScale: Double(displayScale), cap: pipeline.configuration.maximumDecodedPixelSize
        )
        model.configure(
            pipeline: pipeline,
            transaction: transaction,
            keepsPreviousImage: keepsPreviousImage || LayoutDecodeSize.keepsImage(whileLoading: request, after: model.loader.request),
            offscreenBehavior: offscreenBehavior,
            reportsProgress: reportsProgress,
            fadeDuration: options.fadeDuration,
            callbacks: options.callbacks
        )
        // The caller's own request decides (a subtree default's size never changes the layout).
        let pointScale = ImageDisplayScale.scale(
            for: ownRequest,
            explicitScale: scale.map { Double($0) },
            displayScale: Double(displayScale)
        )
        let phase = model.phase(for: request, ownRequest: ownRequest, scale: CGFloat(pointScale))
        // One stable container carries the lifecycle modifiers: on a `Group` they would apply
        // to each child, so a branch change would re-run them.
        return ZStack {
            if let hashPlaceholder = hashPlaceholderImage(for: phase) {
                hashPlaceholder
            } else if showsDefaultPlaceholder && phase.image == nil {
                Self.defaultPlaceholder
            } else {
                content(phase)
            }
        }
        .modifier(ImageLifecycleModifier(
            model: model, request: request, ownRequest: ownRequest, pipeline: pipeline, sizing: layoutSizing, defaults: requestDefaults
        ))
        .recordingLayoutProposal(into: layoutSizing)
    }
}
#endif
