#if canImport(QuartzCore) && (canImport(UIKit) && !os(watchOS) || canImport(AppKit) && !targetEnvironment(macCatalyst))
import CachedImageCore
import QuartzCore
#if canImport(UIKit)
import UIKit
#else
import AppKit
#endif

/// The display link that drives an animation player (core's `AnimationPlayer` with the
/// `.display` driver): `CADisplayLink` on iOS, tvOS and visionOS; on macOS 14 and later the
/// link of the view's own window and screen (`NSView.displayLink(target:selector:)` on
/// ``hostView``, which follows the window across screens), never `NSScreen.main`'s. It runs only
/// while the player wants refreshes, at the rate the animation needs (`preferredFrameRateRange`),
/// and passes each refresh's `targetTimestamp` to the player, which redraws only when the frame
/// changes.
@MainActor
final class AnimationDisplayLink {
    /// Called at each refresh with the time the frame will be shown (`CACurrentMediaTime()`'s scale).
    var onRefresh: ((TimeInterval) -> Void)? {
        get { target.onRefresh }
        set { target.onRefresh = newValue }
    }

    /// Whether this platform has a display link to drive players (else they run their own loop).
    nonisolated static var isAvailable: Bool {
        #if canImport(UIKit)
        return true
        #else
        if #available(macOS 14.0, *) { return true }
        return false
        #endif
    }

    private let target = DisplayLinkTarget()
    private let holder = DisplayLinkHolder()
    /// What the player last asked for, for a link made later (macOS: once a view is in a window).
    private var wanted: (running: Bool, framesPerSecond: Int?) = (false, nil)

    #if !canImport(UIKit)
    /// The view whose window's screen the link follows; none (not in a window yet): no link,
    /// and the player, not visible, wants none. A new view replaces the link.
    weak var hostView: NSView? {
        didSet {
            guard hostView !== oldValue, #available(macOS 14.0, *) else { return }
            holder.link?.invalidate()
            holder.storage = nil
            setRunning(wanted.running, framesPerSecond: wanted.framesPerSecond)
        }
    }
    #endif

    init() {}

    /// Runs the link (at `framesPerSecond` when known) or pauses it.
    func setRunning(_ running: Bool, framesPerSecond: Int?) {
        wanted = (running, framesPerSecond)
        // `CADisplayLink` is macOS 14+ (players made earlier run their own loop).
        guard #available(macOS 14.0, *) else { return }
        guard running else {
            holder.link?.isPaused = true
            return
        }
        guard let link = holder.link ?? makeLink() else { return }
        if let framesPerSecond, framesPerSecond > 0 {
            // iOS and tvOS 15+, visionOS, macOS 14+: every version this link runs on.
            let rate = Float(framesPerSecond)
            link.preferredFrameRateRange = CAFrameRateRange(minimum: min(rate, 10), maximum: rate, preferred: rate)
        }
        link.isPaused = false
    }

    @available(macOS 14.0, *)
    private func makeLink() -> CADisplayLink? {
        let selector = #selector(DisplayLinkTarget.refresh(_:))
        #if canImport(UIKit)
        let link = CADisplayLink(target: target, selector: selector)
        #else
        guard let view = hostView, view.window != nil else { return nil }
        let link = view.displayLink(target: target, selector: selector)
        #endif
        link.add(to: .main, forMode: .common)
        holder.storage = link
        return link
    }
}

/// The link's target (a link retains its target; the target holds its callback, which holds
/// the player weakly).
@MainActor
private final class DisplayLinkTarget: NSObject {
    var onRefresh: ((TimeInterval) -> Void)?

    /// The link's callback (`sender` is the `CADisplayLink`, typed loosely: macOS before 14
    /// has no such class, and never calls this).
    @objc func refresh(_ sender: AnyObject) {
        guard #available(macOS 14.0, *), let link = sender as? CADisplayLink else { return }
        onRefresh?(link.targetTimestamp)
    }
}

/// Invalidates the link when its owner goes away (a run loop keeps a link alive until then).
private final class DisplayLinkHolder: @unchecked Sendable {
    /// The `CADisplayLink` (stored untyped: the class is macOS 14+).
    var storage: AnyObject?

    @available(macOS 14.0, *)
    var link: CADisplayLink? { storage as? CADisplayLink }

    deinit {
        guard #available(macOS 14.0, *) else { return }
        link?.invalidate()
    }
}

/// The clock a display-driven player follows: `CACurrentMediaTime()`, the scale of a display
/// link's timestamps.
struct MediaTimeAnimationClock: UptimeClock {
    var now: TimeInterval { CACurrentMediaTime() }

    func sleep(until deadline: TimeInterval) async throws {
        try await Task.sleep(nanoseconds: SystemUptimeClock.nanoseconds(until: deadline, from: now))
    }
}
#endif
