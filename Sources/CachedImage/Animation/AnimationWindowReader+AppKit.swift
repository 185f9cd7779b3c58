#if canImport(SwiftUI) && canImport(ImageIO) && canImport(AppKit) && !targetEnvironment(macCatalyst)
import AppKit
import CachedImageCore
import SwiftUI

/// macOS: what `CachedAnimatedImage` learns from its window, through an empty `NSView` behind
/// it. `onAppear` says nothing of a window covered by others or miniaturised, so the view
/// follows `NSWindow.occlusionState` and miniaturisation (core's `AnimationVisibility`:
/// `isWindowSeen`), and gives the player's display link the view whose screen it follows.
@MainActor
struct AnimationWindowReader: NSViewRepresentable {
    let player: AnimatedImagePlayer

    func makeNSView(context: Context) -> AnimationWindowTrackingView {
        let view = AnimationWindowTrackingView()
        view.player = player
        return view
    }

    func updateNSView(_ view: AnimationWindowTrackingView, context: Context) {
        view.player = player
    }
}

/// The empty view behind a `CachedAnimatedImage`: follows its window's occlusion and
/// miniaturisation for its player, and hosts the player's display link.
@MainActor
final class AnimationWindowTrackingView: NSView {
    weak var player: AnimatedImagePlayer? {
        didSet {
            if player !== oldValue { follow() }
        }
    }

    /// Removed when this view goes away.
    private let observers = NotificationTokens()

    override func viewDidMoveToWindow() {
        super.viewDidMoveToWindow()
        follow()
    }

    /// Observes the current window (and only it) and reports what it shows.
    private func follow() {
        for observer in observers.tokens { NotificationCenter.default.removeObserver(observer) }
        observers.tokens = []
        player?.displayLink.hostView = window == nil ? nil : self
        guard let window else { return }
        let names = [
            NSWindow.didChangeOcclusionStateNotification,
            NSWindow.didMiniaturizeNotification,
            NSWindow.didDeminiaturizeNotification,
        ]
        let changed = MainThreadCallback.make { [weak self] in self?.windowDidChange() }
        observers.tokens = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: window, queue: .main) { _ in changed() }
        }
        windowDidChange()
    }

    private func windowDidChange() {
        guard let window else { return }
        player?.visibility.isWindowSeen = window.occlusionState.contains(.visible) && !window.isMiniaturized
    }
}
#endif
