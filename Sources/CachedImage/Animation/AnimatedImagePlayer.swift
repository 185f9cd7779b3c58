#if canImport(ImageIO)
import CachedImageCore
import CoreGraphics
import Foundation
#if canImport(UIKit) && !os(watchOS)
@preconcurrency import UIKit
#endif

/// The Apple side of core's `AnimationPlayer`: makes ImageIO frame sources, turns the player's
/// state into the `CGImage` to draw, and forwards the app's lifecycle (background, foreground,
/// memory warnings). Every decision (when to play, what to keep, when to load) is the core
/// player's; the views forward visibility, Reduce Motion and the controls.
///
/// Frame memory: one memory-cache entry per player (never shared by players of one URL),
/// trimmed to the frame on screen whenever playback stops and on memory warnings.
@MainActor
final class AnimatedImagePlayer: ObservableObject {
    /// The image to draw: the animation frame on screen, else the first frame; `nil` before
    /// either is available.
    @Published private(set) var frame: CGImage?
    /// The pixel size of the image the frames were decoded from (the first frame's source),
    /// for `ImageDisplayScale`; `nil` until known.
    private(set) var sourcePixelSize: PixelSize?
    /// Why the load failed, if it did (``retry()`` tries again).
    @Published private(set) var failure: (any Error)?

    /// Called with every change of ``frame`` (the UIKit view draws through this).
    var onFrameChange: ((CGImage?) -> Void)?
    /// Called when a load fails.
    var onFailure: ((any Error) -> Void)?
    /// Called when a finite animation has played all its loops.
    var onFinish: (() -> Void)? {
        get { core.onFinish }
        set { core.onFinish = newValue }
    }

    /// The core player this object drives.
    let core: AnimationPlayer<AnimatedFrameSource>
    #if canImport(SwiftUI)
    /// `CachedAnimatedImage`'s placements, recorded into ``core``'s sizing.
    let layoutRecorder = AnimationLayoutRecorder()
    #endif
    private let notifications = NotificationTokens()
    #if canImport(QuartzCore) && (canImport(UIKit) && !os(watchOS) || canImport(AppKit) && !targetEnvironment(macCatalyst))
    /// Advances the frames in step with the display: `frame` (and so a view's `body`) changes
    /// only when the frame on screen does. On macOS it follows the screen of the view it is
    /// given (`AnimationDisplayLink.hostView`).
    let displayLink = AnimationDisplayLink()
    #endif

    init() {
        let makeSource: @Sendable (Data, DecodingTarget) -> AnimatedFrameSource? = { data, target in
            AnimatedFrameSource(data: data, target: target)
        }
        #if canImport(QuartzCore) && (canImport(UIKit) && !os(watchOS) || canImport(AppKit) && !targetEnvironment(macCatalyst))
        if AnimationDisplayLink.isAvailable {
            core = AnimationPlayer(clock: MediaTimeAnimationClock(), driver: .display, makeSource: makeSource)
            let link = displayLink
            link.onRefresh = { [weak core] timestamp in core?.displayDidRefresh(at: timestamp) }
            core.onWantsDisplayRefreshChange = { [weak core] wants in
                link.setRunning(wants, framesPerSecond: core?.preferredFramesPerSecond)
            }
        } else {
            core = AnimationPlayer(makeSource: makeSource)
        }
        #else
        core = AnimationPlayer(makeSource: makeSource)
        #endif
        core.onChange = { [weak self] in self?.publish() }
        #if canImport(SwiftUI)
        layoutRecorder.player = core
        #endif
        #if canImport(UIKit) && !os(watchOS)
        let center = NotificationCenter.default
        notifications.tokens = [
            center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main) { [weak self] _ in
                Task { @MainActor in self?.core.setAppActive(false) }
            },
            center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: .main) { [weak self] _ in
                Task { @MainActor in self?.core.setAppActive(true) }
            },
            // Also on becoming active: a player made while `willEnterForeground` was delivered
            // (the state still `.background`) missed it.
            center.addObserver(forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main) { [weak self] _ in
                Task { @MainActor in self?.core.setAppActive(true) }
            },
            center.addObserver(forName: UIApplication.didReceiveMemoryWarningNotification, object: nil, queue: .main) { [weak self] _ in
                Task { @MainActor in self?.core.didReceiveMemoryWarning() }
            },
        ]
        // A player made while the app is already in the background (a view built on a
        // background launch or refresh) waits for the foreground notification.
        if Self.sharedApplication?.applicationState == .background {
            core.setAppActive(false)
        }
        #endif
    }

    #if canImport(UIKit) && !os(watchOS)
    /// `UIApplication.shared`, looked up at run time: the property is unavailable to app
    /// extensions (widgets, share extensions), which link this module too; `nil` there.
    private static var sharedApplication: UIApplication? {
        let selector = NSSelectorFromString("sharedApplication")
        guard UIApplication.responds(to: selector) else { return nil }
        return UIApplication.perform(selector)?.takeUnretainedValue() as? UIApplication
    }
    #endif

    /// Whether the view is seen: the views set its inputs (window, hidden ancestors, geometry,
    /// occlusion), core's `AnimationVisibility` decides, and the player plays only while it holds.
    var visibility = AnimationVisibility() {
        didSet {
            guard visibility != oldValue else { return }
            core.setVisible(visibility.isVisible)
        }
    }

    /// The most bytes of decoded frames kept. Default: 16 MB.
    var frameBufferLimit: Int {
        get { core.frameBufferLimit }
        set { core.frameBufferLimit = newValue }
    }

    /// Shows the view's own request `own` at its laid-out size, `defaults` capping it (core's
    /// `AnimationPlayer.show`: a no-op for the request already shown; `nil` clears).
    func show(
        _ own: ImageRequest?,
        defaults: ImageRequestDefaults,
        waitsForLayout: Bool = false,
        followsLayout: Bool = true,
        pipeline: ImagePipeline
    ) {
        #if canImport(UIKit) && !os(watchOS)
        AppLifecycleObserver.install(for: pipeline)
        #endif
        core.show(own, defaults: defaults, waitsForLayout: waitsForLayout, followsLayout: followsLayout, pipeline: pipeline)
        publish()
    }

    /// Loads the current request again.
    func retry() {
        core.retry()
    }

    private func publish() {
        var image: CGImage?
        var error: (any Error)?
        if case .firstFrame(let first) = core.phase { sourcePixelSize = first.sourcePixelSize } else { sourcePixelSize = nil }
        if let shown = core.displayedFrame {
            image = shown.cgImage
        } else {
            switch core.phase {
            case .empty: break
            case .firstFrame(let first): image = first.cgImage
            case .failure(let failure): error = failure
            }
        }
        if error == nil, failure != nil { failure = nil }
        if let error, failure == nil {
            failure = error
            onFailure?(error)
        }
        if image !== frame {
            frame = image
            onFrameChange?(image)
        }
    }
}

/// Notification observers, removed when their owner (a player, a view) goes away.
final class NotificationTokens: @unchecked Sendable {
    var tokens: [any NSObjectProtocol] = []

    deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }
}
#endif
