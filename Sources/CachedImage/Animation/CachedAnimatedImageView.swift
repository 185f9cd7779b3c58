#if canImport(UIKit) && canImport(ImageIO) && !os(watchOS)
import CachedImageCore
import UIKit

/// A `UIImageView` that loads through an ``ImagePipeline`` and plays animated GIF, APNG and
/// WebP images: the UIKit counterpart of ``CachedAnimatedImage``.
///
/// - Set the image whenever you like (in `cellForItemAt`, before `addSubview`): it plays only
///   while it is seen, and pauses in the background and stays on its frame while Reduce Motion
///   is on. Seen: in a window, neither it nor an ancestor hidden or transparent, some of it inside
///   its window and every clipping ancestor (a cell UIKit keeps for reuse or prefetching, hidden
///   or outside the collection view's visible bounds, does not play). Scrolling moves a view
///   without telling it, so a view in a window checks again 4 times a second (a walk up its
///   superviews) besides its window, layout and hidden changes. For what it cannot see, set
///   ``isDisplayed`` from `collectionView(_:didEndDisplaying:forItemAt:)`.
/// - The request decodes at the view's size: a request without a `targetSize` is decoded for
///   its bounds at its screen's scale, filling or fitting as `contentMode` draws it (as
///   ``CachedImageViewLoader``; ``requestDefaults`` cap it). A view configured before its first
///   layout loads after it; one that stays 0x0 (sized by its image) loads at the cap. A view
///   that grows, or joins a window of a higher scale, decodes again with its frame on screen.
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
    /// The request as the caller gave it, point sizes resolved: what the scale rule reads.
    private var ownRequest: ImageRequest?
    /// The request as the caller gave it (sizes and processors in points unresolved), and the
    /// scale they were resolved at: joining a window of another scale resolves them again.
    private var givenRequest: ImageRequest?
    private var resolvedScale = 0.0
    private var pipeline: ImagePipeline = .shared
    /// Voids an end-of-turn layout armed for an earlier request.
    private var layoutToken = 0

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

    /// Defaults filled into every request this view loads (options, a maximum size that caps
    /// the view's own size...).
    public var requestDefaults = ImageRequestDefaults()

    /// Whether the app displays this view; `true` by default. The view pauses by itself when it
    /// is not seen (see above); set this to `false` in `collectionView(_:didEndDisplaying:forItemAt:)`
    /// (`tableView(_:didEndDisplaying:forRowAt:)`) and back to `true` in `willDisplay`, so a
    /// cell pauses even where that check cannot tell (a cell covered by another view, a
    /// collection view that does not clip its cells).
    public var isDisplayed = true {
        didSet { updateVisibility() }
    }

    /// Called when a load fails (the view keeps whatever it showed); ``retry()`` loads again.
    public var onFailure: ((any Error) -> Void)?

    /// Why the current image failed to load, if it did.
    public var loadError: (any Error)? { player.failure }

    /// An empty view of `frame`; set an image with ``setImage(with:pipeline:)``.
    public override init(frame: CGRect) {
        super.init(frame: frame)
        setUp()
    }

    /// An empty view with a zero frame (size it with constraints or `frame` later).
    public convenience init() {
        self.init(frame: .zero)
    }

    /// A view from a storyboard or nib; set an image with ``setImage(with:pipeline:)``.
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
        // Visibility is checked only while the animation would play if seen.
        player.core.onWantsToPlayChange = { [weak self] _ in self?.updateVisibility() }
        player.core.setReduceMotionEnabled(UIAccessibility.isReduceMotionEnabled)
        // Selector-based: removed automatically when the view is deallocated.
        NotificationCenter.default.addObserver(
            self,
            selector: #selector(reduceMotionChanged),
            name: UIAccessibility.reduceMotionStatusDidChangeNotification,
            object: nil
        )
    }

    /// Pixels per point for `frame`: `ImageDisplayScale`'s rule, shared with
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
    /// Without a `targetSize`, the request decodes for the view's bounds (after its first layout
    /// when it has no size yet). Setting the request already shown changes nothing; a new one
    /// never shows the previous image's frames.
    public func setImage(with request: ImageRequest?, pipeline: ImagePipeline = .shared) {
        // A size in points becomes pixels at this view's scale, once it has one (in a window);
        // joining a window of another scale resolves it again (layoutDidChange).
        let scale = Double((window?.traitCollection ?? traitCollection).displayScale)
        givenRequest = request
        resolvedScale = scale
        var request = scale > 0 ? request?.resolvingPointSize(displayScale: scale) : request
        // Fill or fit as the view draws its image; drawn unscaled (`.center`...): as is, within the cap.
        let mode = ImageContentMode(viewContentMode: contentMode.rawValue)
        if request?.targetPixelSize == nil, let mode { request?.contentMode = mode }
        let requestDefaults = scale > 0 ? self.requestDefaults.resolvingPointSize(displayScale: scale) : self.requestDefaults
        let sizing = player.core.sizing
        guard request != sizing.own || requestDefaults != sizing.defaults || pipeline !== self.pipeline else { return }
        ownRequest = request
        self.pipeline = pipeline
        layoutToken += 1
        player.show(request, defaults: requestDefaults, waitsForLayout: true, followsLayout: mode != nil, pipeline: pipeline)
        loadWhenLaidOut()
        if request == nil { image = nil }
    }

    /// Loads once the view is in a window (before, its scale is a guess: a cell configured in
    /// `cellForItemAt` would decode at 1x, then again at 3x) and laid out: at once when it is
    /// (a memory hit shows its first frame before `setImage` returns); else at its first
    /// layout, or at the end of the turn for a view that stays 0x0 (sized by its image: the cap).
    private func loadWhenLaidOut() {
        guard window != nil else { return } // didMoveToWindow loads
        if bounds.width > 0 || bounds.height > 0 {
            layoutDidChange()
        } else {
            let token = layoutToken
            Task { @MainActor [weak self] in
                guard let self, token == self.layoutToken else { return }
                self.layoutDidChange()
            }
        }
    }

    /// The view's size or scale may have changed: loads a request that waited for a layout,
    /// or the image again at a larger size (the frame on screen stays meanwhile). Outside a
    /// window nothing is recorded: joining one does it, at the window's scale.
    private func layoutDidChange() {
        guard window != nil else { return }
        let scale = (window?.traitCollection ?? traitCollection).displayScale
        if scale > 0, Double(scale) != resolvedScale, givenRequest != nil {
            // Points resolved outside the window (at 1x): resolve them at the window's scale
            // (a request with none is the same request: nothing changes).
            setImage(with: givenRequest, pipeline: pipeline)
        }
        player.core.layoutDidChange(width: Double(bounds.width), height: Double(bounds.height), displayScale: Double(scale > 0 ? scale : 1))
    }

    /// Decodes for the new size, and checks whether the view is still seen.
    public override func layoutSubviews() {
        super.layoutSubviews()
        layoutDidChange()
        updateVisibility()
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

    /// Plays while seen in a window, pauses outside one; a window of a higher scale decodes
    /// the image again, sharper.
    public override func didMoveToWindow() {
        super.didMoveToWindow()
        // The first load of a view configured outside a window, or a scale change.
        loadWhenLaidOut()
        updateVisibility()
    }

    /// Hidden views do not play.
    public override var isHidden: Bool {
        didSet { updateVisibility() }
    }

    /// Transparent views do not play.
    public override var alpha: CGFloat {
        didSet { updateVisibility() }
    }

    /// Reads what makes the view seen (core's `AnimationVisibility` decides) and keeps checking
    /// while it is in a window.
    private func updateVisibility() {
        var visibility = AnimationVisibility()
        visibility.isDisplayed = isDisplayed
        visibility.wantsToPlay = player.core.wouldPlayIfVisible
        if let window {
            visibility.isInWindow = true
            visibility.frame = convert(bounds, to: window)
            var opacity = 1.0
            var clips: [CGRect] = []
            var view: UIView? = self
            while let current = view {
                if current.isHidden { visibility.isHidden = true }
                opacity *= Double(current.alpha)
                if current !== self, current.clipsToBounds || current === window {
                    clips.append(current.convert(current.bounds, to: window))
                }
                view = current.superview
            }
            visibility.opacity = opacity
            visibility.clips = clips
        }
        player.visibility = visibility
        if visibility.needsPeriodicCheck {
            AnimationVisibilityTicker.shared.add(self) { [weak self] in self?.updateVisibility() }
        } else {
            AnimationVisibilityTicker.shared.remove(self)
        }
    }
}
#endif
