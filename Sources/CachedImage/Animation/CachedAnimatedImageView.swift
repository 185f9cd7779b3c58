#if canImport(UIKit) && canImport(ImageIO) && !os(watchOS)
import CachedImageCore
import UIKit

/// A `UIImageView` that loads through an ``ImagePipeline`` and plays animated GIF, APNG and
/// WebP images: the UIKit counterpart of ``CachedAnimatedImage``.
///
/// - Set the image whenever you like (in `cellForItemAt`, before `addSubview`): it plays once
///   the view is in a window and not hidden, pauses when it leaves or hides, pauses in the
///   background, and stays on its frame while Reduce Motion is on.
/// - `startAnimating()` / `stopAnimating()` / `isAnimating` control playback (no
///   `animationImages` involved); ``animationLoopCount`` and ``animationSpeed`` override the
///   file's timing.
/// - One fetch per image; the first frame is set synchronously on a memory hit.
/// - Frames are decoded on demand off the main actor into a bounded buffer with a memory-cache
///   entry of this view's own, trimmed to the frame on screen when playback stops and on memory
///   warnings; everything is released when the view is.
///
/// ```swift
/// let sticker = CachedAnimatedImageView()
/// sticker.setImage(with: ImageRequest(url: stickerURL))
/// sticker.animationLoopCount = 1
/// ```
@MainActor
public final class CachedAnimatedImageView: UIImageView {
    private let player = AnimatedImagePlayer()
    private var request: ImageRequest?
    /// The request as the caller gave it, before ``requestDefaults``: what the scale rule reads.
    private var ownRequest: ImageRequest?
    private var pipeline: ImagePipeline = .shared

    /// The most bytes of decoded frames kept. Default: 16 MB.
    public var frameBufferLimit: Int {
        get { player.frameBufferLimit }
        set { player.frameBufferLimit = newValue }
    }

    /// Loops to play instead of the file's count (`0`: forever); `nil` (the default) follows the file.
    public var animationLoopCount: Int? {
        didSet { player.core.setLoopCountOverride(animationLoopCount) }
    }

    /// Playback rate: `1` (the default) plays the file's timing, `2` twice as fast.
    public var animationSpeed: Double = 1 {
        didSet { player.core.setSpeed(animationSpeed) }
    }

    /// Defaults filled into every request this view loads (target size cap, options...).
    public var requestDefaults = ImageRequestDefaults()

    /// Called when a load fails (the view keeps whatever it showed); ``retry()`` loads again.
    public var onFailure: ((any Error) -> Void)?

    /// Why the current image failed to load, if it did.
    public var loadError: (any Error)? { player.failure }

    public override init(frame: CGRect) {
        super.init(frame: frame)
        setUp()
    }

    /// An empty view with a zero frame (size it with constraints or `frame` later).
    public convenience init() {
        self.init(frame: .zero)
    }

    public required init?(coder: NSCoder) {
        super.init(coder: coder)
        setUp()
    }

    private func setUp() {
        player.onFrameChange = { [weak self] frame in
            guard let self else { return }
            self.image = frame.map { UIImage(cgImage: $0, scale: self.scale(of: $0), orientation: .up) }
        }
        player.onFailure = { [weak self] error in self?.onFailure?(error) }
        player.core.setReduceMotionEnabled(UIAccessibility.isReduceMotionEnabled)
        // Selector-based: removed automatically when the view is deallocated.
        NotificationCenter.default.addObserver(
            self,
            selector: #selector(reduceMotionChanged),
            name: UIAccessibility.reduceMotionStatusDidChangeNotification,
            object: nil
        )
    }

    /// Pixels per point for `frame`: ``ImageDisplayScale``'s rule, shared with
    /// `CachedAsyncImage`, `CachedAnimatedImage` and `CachedImageViewLoader`.
    private func scale(of frame: CGImage) -> CGFloat {
        guard let ownRequest else { return traitCollection.displayScale }
        let displayScale = traitCollection.displayScale > 0 ? Double(traitCollection.displayScale) : 1
        let pointScale = ImageDisplayScale.scale(for: ownRequest, explicitScale: nil, displayScale: displayScale)
        return CGFloat(ImageDisplayScale.scale(
            pointScale, decoded: PixelSize(width: frame.width, height: frame.height), source: player.sourcePixelSize, request: ownRequest
        ))
    }

    @objc private func reduceMotionChanged() {
        player.core.setReduceMotionEnabled(UIAccessibility.isReduceMotionEnabled)
    }

    /// Loads (and plays, when animated) `request` through `pipeline`; `nil` clears the view.
    /// Setting the request already shown changes nothing.
    public func setImage(with request: ImageRequest?, pipeline: ImagePipeline = .shared) {
        // A size in points becomes pixels at this view's scale, once it has one (in a window).
        let scale = Double(traitCollection.displayScale)
        let request = scale > 0 ? request?.resolvingPointSize(displayScale: scale) : request
        let resolved = request.map(requestDefaults.applied(to:))
        guard resolved != self.request || pipeline !== self.pipeline else { return }
        self.request = resolved
        self.ownRequest = request
        self.pipeline = pipeline
        // A memory hit shows its first frame before this method returns.
        player.load(resolved, pipeline: pipeline)
        if resolved == nil { image = nil }
    }

    /// Loads the current image again (after a failure).
    public func retry() {
        player.retry()
    }

    /// Plays the animation (the default); plays a finished one again from its start.
    public override func startAnimating() {
        player.core.setRequestedPlaying(true)
    }

    /// Stops on the frame on screen, keeping only that frame in memory.
    public override func stopAnimating() {
        player.core.setRequestedPlaying(false)
    }

    /// Whether frames are advancing now (requested, visible, app active, Reduce Motion off).
    public override var isAnimating: Bool {
        player.core.isPlaying
    }

    public override func didMoveToWindow() {
        super.didMoveToWindow()
        updateVisibility()
    }

    public override var isHidden: Bool {
        didSet { updateVisibility() }
    }

    private func updateVisibility() {
        player.core.setVisible(window != nil && !isHidden)
    }
}
#endif
