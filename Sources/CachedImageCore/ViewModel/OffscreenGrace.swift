import Foundation

/// How long a view's load may keep running once the view left the screen: the one rule behind
/// ``OffscreenBehavior``'s grace period.
///
/// - A view that showed an image, or stayed on screen at least ``flungVisibleTime``, gets the
///   behaviour's grace period: a quick scroll back finds its load still running (or its image
///   still held, or in the memory cache) and makes no new request.
/// - A view that was on screen for less than that (at least a frame: appearing and disappearing
///   in one update is a branch swap, not a fling) and showed nothing was flung past: its load (a
///   load only: a failure keeps the grace period before it is asked again) is
///   stopped at the end of the main-actor turn (a branch swap that disappears and appears in one
///   update stops nothing), as AsyncImage's is. A load still waiting for a download slot never
///   reached the network; a running one has had less than a round trip on a mobile link.
package enum OffscreenGrace {
    /// On screen for less than this many seconds, showing nothing: flung. A quarter of a second:
    /// 15 frames at 60 Hz; a fling shows a row for a few frames.
    package static let flungVisibleTime: TimeInterval = 0.25
    /// On screen for less than this (under a frame at 120 Hz), the appearance and disappearance
    /// came in one update (a branch swap, a re-render): not a fling, the grace period holds.
    package static let sameUpdateTime: TimeInterval = 0.005

    /// The seconds a load keeps running off screen under `behavior` (`nil`: it is never stopped),
    /// for a view on screen for `visibleTime` seconds (`nil`: unknown, never reported) that
    /// `showedImage` or not.
    package static func gracePeriod(
        _ behavior: OffscreenBehavior, visibleTime: TimeInterval?, showedImage: Bool
    ) -> TimeInterval? {
        guard let grace = behavior.gracePeriod else { return nil }
        guard case .lowerPriorityThenCancel = behavior, !showedImage,
              let visibleTime, (sameUpdateTime..<flungVisibleTime).contains(visibleTime) else { return grace }
        return 0
    }
}
