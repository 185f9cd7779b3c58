#if canImport(UIKit) && canImport(ImageIO) && !os(watchOS)
import CachedImageCore
import Foundation

/// One timer for every `CachedAnimatedImageView` in a window: scrolling moves a view without
/// telling it, so each checks whether it is seen at `AnimationVisibility.recheckInterval`
/// (4 times a second), also while the user scrolls (the run loop's common modes). The timer runs
/// only while some view is registered; a view that leaves its window, or goes away, is dropped.
@MainActor
final class AnimationVisibilityTicker {
    static let shared = AnimationVisibilityTicker()

    private var checks: [ObjectIdentifier: (owner: Weak, check: () -> Void)] = [:]
    private var timer: Timer?

    /// Checks `owner` with `check` at every tick, until ``remove(_:)`` or it goes away.
    func add(_ owner: AnyObject, check: @escaping () -> Void) {
        checks[ObjectIdentifier(owner)] = (Weak(owner), check)
        guard timer == nil else { return }
        let tick = MainThreadCallback.make { AnimationVisibilityTicker.shared.tick() }
        let timer = Timer(timeInterval: AnimationVisibility.recheckInterval, repeats: true) { _ in tick() }
        timer.tolerance = AnimationVisibility.recheckInterval / 4
        RunLoop.main.add(timer, forMode: .common)
        self.timer = timer
    }

    func remove(_ owner: AnyObject) {
        checks[ObjectIdentifier(owner)] = nil
        stopIfIdle()
    }

    private func tick() {
        checks = checks.filter { $0.value.owner.value != nil }
        for entry in Array(checks.values) { entry.check() }
        stopIfIdle()
    }

    private func stopIfIdle() {
        guard checks.isEmpty else { return }
        timer?.invalidate()
        timer = nil
    }

    /// A weak reference to a registered view.
    private struct Weak {
        weak var value: AnyObject?
        init(_ value: AnyObject) { self.value = value }
    }
}
#endif
