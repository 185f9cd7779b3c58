#if canImport(UIKit) && canImport(ImageIO) && !os(watchOS)
import CachedImageCore
import UIKit

/// A `UIImageView` that loads through an ``ImagePipeline`` and plays animated GIF, APNG and
/// WebP images: the UIKit counterpart of ``CachedAnimatedImage``.
///
/// - The first frame is set synchronously on a memory hit.
/// - Frames are decoded on demand off the main actor into a bounded buffer counted against the
///   memory cache.
/// - Playback pauses when the view leaves its window or is hidden, and stays on the first frame
///   while Reduce Motion is on.
///
/// ```swift
/// let sticker = CachedAnimatedImageView()
/// sticker.setImage(with: ImageRequest(url: stickerURL))
/// ```
@MainActor
public final class CachedAnimatedImageView: UIImageView {
    private let player = AnimatedImagePlayer()
    private var request: ImageRequest?
    private var pipeline: ImagePipeline = .shared

    /// The most bytes of decoded frames kept. Default: 16 MB.
    public var frameBufferLimit: Int {
        get { player.frameBufferLimit }
        set { player.frameBufferLimit = newValue }
    }

    public override init(frame: CGRect) {
        super.init(frame: frame)
        setUp()
    }

    public required init?(coder: NSCoder) {
        super.init(coder: coder)
        setUp()
    }

    private func setUp() {
        player.onFrameChange = { [weak self] frame in
            guard let self, let frame else { return }
            self.image = UIImage(cgImage: frame, scale: self.traitCollection.displayScale, orientation: .up)
        }
        // Selector-based: removed automatically when the view is deallocated.
        NotificationCenter.default.addObserver(
            self,
            selector: #selector(reduceMotionChanged),
            name: UIAccessibility.reduceMotionStatusDidChangeNotification,
            object: nil
        )
    }

    @objc private func reduceMotionChanged() {
        updatePlayback()
    }

    /// Loads (and plays, when animated) `request` through `pipeline`; `nil` clears the view.
    public func setImage(with request: ImageRequest?, pipeline: ImagePipeline = .shared) {
        guard request != self.request || pipeline !== self.pipeline else { return }
        self.request = request
        self.pipeline = pipeline
        player.reset()
        guard let request else {
            image = nil
            return
        }
        // A memory hit shows its first frame before this method returns.
        image = pipeline.cachedImage(for: request)?.cgImage.map {
            UIImage(cgImage: $0, scale: traitCollection.displayScale, orientation: .up)
        }
        player.load(request, pipeline: pipeline, isPaused: !shouldPlay)
    }

    public override func didMoveToWindow() {
        super.didMoveToWindow()
        updatePlayback()
    }

    public override var isHidden: Bool {
        didSet { updatePlayback() }
    }

    private var shouldPlay: Bool {
        window != nil && !isHidden && !UIAccessibility.isReduceMotionEnabled
    }

    private func updatePlayback() {
        shouldPlay ? player.resume() : player.pause()
    }
}
#endif
