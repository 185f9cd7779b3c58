#if canImport(SwiftUI) && canImport(ImageIO)
import CachedImageCore
import SwiftUI

/// Shows an image through the pipeline like ``CachedAsyncImage`` and, when it is an animated
/// GIF, APNG or WebP, plays it. Opt-in: `CachedAsyncImage` always shows the first frame.
///
/// - One fetch: the first frame and the bytes that play come from one load
///   (`ImagePipeline/animatedImage(for:)`); a memory hit renders the first frame synchronously.
/// - Decodes first frame and frames at the size the view is laid out at (its proposal times the
///   display's scale, as ``CachedAsyncImage``): a 120 pt sticker of a 1920x1080 animation decodes
///   360-pixel frames, so the frame buffer holds its loop. The request's own `targetSize` wins;
///   the `imageRequestDefaults` environment value caps the laid-out size, never replaces it.
/// - Plays only while on screen (on macOS, also while its window is not occluded or
///   miniaturised), with the app in the foreground, Reduce Motion off and `isAnimating` true;
///   time spent otherwise is not played, so a finite animation resumes where it stopped.
///   "On screen" is SwiftUI's `onAppear`/`onDisappear`: a view made transparent with
///   `.opacity(0)` or `.hidden()` gets neither and keeps playing: set its `isAnimating` binding to `false` there.
/// - A new request never shows the previous image's frames, not even for one render.
/// - Frames are decoded on demand off the main actor into a bounded buffer (``frameBufferLimit``
///   on the UIKit view; 16 MB here) counted in the memory cache under an entry of this view's
///   own, and trimmed to the frame on screen whenever playback stops and on memory warnings.
/// - Honours the `imageRequestDefaults` environment value, like ``CachedAsyncImage``.
///
/// ```swift
/// @State private var playing = true
///
/// CachedAnimatedImage(url: stickerURL, isAnimating: $playing)
///     .animationLoopCount(2)
///     .animationSpeed(1.5)
///     .frame(width: 120, height: 120)
/// ```
@MainActor
public struct CachedAnimatedImage<Content: View>: View {
    @Environment(\.imagePipeline) private var pipeline
    @Environment(\.imageRequestDefaults) private var requestDefaults
    @Environment(\.accessibilityReduceMotion) private var reduceMotion
    @Environment(\.displayScale) private var displayScale
    @StateObject private var player = AnimatedImagePlayer()

    private let request: ImageRequest
    /// Pixels per point; `nil`: `ImageDisplayScale`'s rule, as ``CachedAsyncImage``.
    private let scale: CGFloat?
    private let isAnimating: Binding<Bool>?
    private var loopCount: Int?
    private var speed: Double = 1
    /// How the placeholder initialisers draw the frame: the decode's content mode.
    private var drawnContentMode: ContentMode?
    private let content: (CachedAnimatedImagePhase) -> Content

    /// Plays the image `request` loads, calling `content` with each phase: `.empty` while
    /// loading, `.success` with the frame on screen, `.failure` with the error and a retry action.
    ///
    /// - Parameter isAnimating: Plays while `true` (the default without a binding); set back to
    ///   `false` when a finite animation finishes, so setting it to `true` plays it again.
    public init(
        request: ImageRequest,
        scale: CGFloat? = nil,
        isAnimating: Binding<Bool>? = nil,
        @ViewBuilder content: @escaping (CachedAnimatedImagePhase) -> Content
    ) {
        self.request = request
        self.scale = scale
        self.isAnimating = isAnimating
        self.content = content
    }

    /// Plays `count` loops instead of the file's loop count (`0`: forever; `nil`: the file's).
    public func animationLoopCount(_ count: Int?) -> Self {
        var copy = self
        copy.loopCount = count
        return copy
    }

    /// Plays at `speed` times the file's timing (`1`: as authored; `0` holds the frame).
    public func animationSpeed(_ speed: Double) -> Self {
        var copy = self
        copy.speed = speed
        return copy
    }

    /// The request as the view asks for it: point sizes at this display's scale, and the
    /// placeholder initialisers' content mode when it has no target size.
    private var ownRequest: ImageRequest {
        var own = request.resolvingPointSize(displayScale: Double(displayScale))
        if own.targetPixelSize == nil, let drawnContentMode {
            own.contentMode = drawnContentMode == .fit ? .aspectFit : .aspectFill
        }
        return own
    }

    /// ``ownRequest``, after telling the layout recorder this display's scale.
    private func ownRequestForBody() -> ImageRequest {
        player.layoutRecorder.displayScale = Double(displayScale)
        return ownRequest
    }

    public var body: some View {
        let own = ownRequestForBody()
        let defaults = requestDefaults.resolvingPointSize(displayScale: Double(displayScale))
        // The player's frame only for the request it shows: a row rendered with a new request
        // before `onChange` hands it over never draws the previous image (AnimationPlayer.drawsFrame).
        let isPlayers = player.core.drawsFrame(for: own)
        // Before the player has a frame, the memory cache's first frame (at the laid-out size),
        // looked up synchronously so a memory hit never shows the placeholder.
        let cached = isPlayers && player.frame != nil
            ? nil : player.core.sizedRequest(for: own, defaults: defaults).flatMap { pipeline.memoryCachedImage(for: $0) }
        let frame = (isPlayers ? player.frame : nil) ?? cached?.cgImage
        let source = (isPlayers ? player.sourcePixelSize : nil) ?? cached?.sourcePixelSize
        // A ZStack keeps one identity whatever `content` returns, so a phase change never
        // re-runs onAppear/onDisappear.
        ZStack {
            content(phase(frame, source: source, failure: isPlayers ? player.failure : nil))
        }
        .onAppear {
            applyControls()
            player.core.setReduceMotionEnabled(reduceMotion)
            player.visibility.isInWindow = true
            player.show(own, defaults: defaults, pipeline: pipeline)
        }
        .onDisappear {
            player.visibility.isInWindow = false
        }
        .onAnimatedImageChange(of: ShownRequest(own: own, defaults: defaults)) { player.show($0.own, defaults: $0.defaults, pipeline: pipeline) }
        .onAnimatedImageChange(of: ObjectIdentifier(pipeline)) { _ in player.show(own, defaults: defaults, pipeline: pipeline) }
        .onAnimatedImageChange(of: reduceMotion) { player.core.setReduceMotionEnabled($0) }
        .onAnimatedImageChange(of: isAnimating?.wrappedValue ?? true) { player.core.setRequestedPlaying($0) }
        .onAnimatedImageChange(of: loopCount) { player.core.setLoopCountOverride($0) }
        .onAnimatedImageChange(of: speed) { player.core.setSpeed($0) }
        .recordingLayoutProposal(into: player.layoutRecorder)
        #if canImport(AppKit) && !targetEnvironment(macCatalyst)
        .background(AnimationWindowReader(player: player))
        #endif
    }

    private func phase(_ frame: CGImage?, source: PixelSize?, failure: (any Error)?) -> CachedAnimatedImagePhase {
        if let frame {
            // One scale rule with CachedAsyncImage and the UIKit views (ImageDisplayScale).
            let pointScale = ImageDisplayScale.scale(for: request, explicitScale: scale.map { Double($0) }, displayScale: Double(displayScale))
            let frameScale = ImageDisplayScale.scale(
                pointScale, decoded: PixelSize(width: frame.width, height: frame.height), source: source, request: request
            )
            return .success(Image(accessible: frame, scale: CGFloat(frameScale))) // VoiceOver reaches it, as AsyncImage's
        }
        if let failure {
            return .failure(failure, retry: CachedAnimatedImageRetry { [player] in player.retry() })
        }
        return .empty
    }

    private func applyControls() {
        player.core.setRequestedPlaying(isAnimating?.wrappedValue ?? true)
        player.core.setLoopCountOverride(loopCount)
        player.core.setSpeed(speed)
        let binding = isAnimating
        player.onFinish = { binding?.wrappedValue = false }
    }
}

/// What a ``CachedAnimatedImage`` hands its player: its own request and the subtree's defaults.
private struct ShownRequest: Equatable {
    var own: ImageRequest
    var defaults: ImageRequestDefaults
}

/// What a ``CachedAnimatedImage`` shows.
public enum CachedAnimatedImagePhase {
    /// Loading, with no frame yet.
    case empty
    /// The frame on screen (the first frame until playback starts).
    case success(Image)
    /// The load failed; call `retry()` to load again.
    case failure(any Error, retry: CachedAnimatedImageRetry)

    /// The frame, if any.
    public var image: Image? {
        if case .success(let image) = self { image } else { nil }
    }

    /// The error, if the load failed.
    public var error: (any Error)? {
        if case .failure(let error, _) = self { error } else { nil }
    }
}

/// Loads a failed ``CachedAnimatedImage`` again: `retry()`.
@MainActor
public struct CachedAnimatedImageRetry {
    private let action: @MainActor () -> Void

    init(_ action: @escaping @MainActor () -> Void) {
        self.action = action
    }

    /// Loads the image again (asking the server even if it failed moments ago).
    public func callAsFunction() {
        action()
    }
}

/// The content of the placeholder initialisers: the frame, fitted or filled, else the placeholder.
public struct CachedAnimatedImageContent<Placeholder: View>: View {
    let phase: CachedAnimatedImagePhase
    let contentMode: ContentMode
    let placeholder: () -> Placeholder

    public var body: some View {
        if let image = phase.image {
            image.resizable().aspectRatio(contentMode: contentMode)
        } else {
            placeholder()
        }
    }
}

extension CachedAnimatedImage {
    /// Plays the image `request` loads, scaled to fit or fill the view, with `placeholder` until
    /// its first frame is available (and after a failure).
    public init<Placeholder: View>(
        request: ImageRequest,
        scale: CGFloat? = nil,
        contentMode: ContentMode = .fit,
        isAnimating: Binding<Bool>? = nil,
        @ViewBuilder placeholder: @escaping () -> Placeholder
    ) where Content == CachedAnimatedImageContent<Placeholder> {
        self.init(request: request, scale: scale, isAnimating: isAnimating) { phase in
            CachedAnimatedImageContent(phase: phase, contentMode: contentMode, placeholder: placeholder)
        }
        drawnContentMode = contentMode
    }

    /// Plays the image at `url` with a neutral placeholder; see
    /// ``init(request:scale:contentMode:isAnimating:placeholder:)``.
    public init(
        url: URL?,
        scale: CGFloat? = nil,
        contentMode: ContentMode = .fit,
        isAnimating: Binding<Bool>? = nil
    ) where Content == CachedAnimatedImageContent<Color> {
        self.init(request: ImageRequest(url: url), scale: scale, contentMode: contentMode, isAnimating: isAnimating) {
            Color.gray.opacity(0.2)
        }
    }
}

extension View {
    /// `onChange(of:)` without the iOS 17 deprecation: the two-parameter form where the SDK
    /// has it (iOS 17 SDKs ship the Observation module) and the OS runs it, else the original.
    @ViewBuilder
    fileprivate func onAnimatedImageChange<Value: Equatable>(of value: Value, perform action: @escaping (Value) -> Void) -> some View {
        #if canImport(Observation)
        if #available(iOS 17, macOS 14, tvOS 17, watchOS 10, *) {
            onChange(of: value) { _, newValue in action(newValue) }
        } else {
            onChange(of: value, perform: action)
        }
        #else
        onChange(of: value, perform: action)
        #endif
    }
}
#endif
