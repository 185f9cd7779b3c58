import Foundation

/// Whether an animated image view is seen, from what its platform view can read: the one rule
/// behind `CachedAnimatedImageView`'s (and, on macOS, `CachedAnimatedImage`'s) pause, here so it
/// is tested on every platform.
///
/// A view is visible only while all of these hold:
/// - it is in a window, and that window is seen (macOS: not occluded, not miniaturised),
/// - neither it nor any ancestor is hidden, and their combined opacity is above
///   ``minimumOpacity`` (UIKit ignores touches on a view as transparent as that, too),
/// - some of its frame is inside every clipping ancestor (a scroll view, the collection view
///   around a cell) and its window's bounds: a cell UIKit keeps in the hierarchy for reuse or
///   prefetching, outside the visible bounds, is not visible,
/// - the app has not said it ended displaying it (``isDisplayed``: `didEndDisplaying`).
///
/// Scrolling moves a view without telling it, so a view in a window re-checks at
/// ``recheckInterval`` (``needsPeriodicCheck``) besides its window, hidden and layout changes.
package struct AnimationVisibility: Sendable, Equatable {
    /// Opacity at or below which a view counts as transparent (UIKit's hit-testing threshold).
    package static let minimumOpacity = 0.01
    /// How often a view in a window checks its geometry again (4 times a second: a row
    /// scrolled into view starts within a quarter of a second; a walk up a dozen superviews
    /// costs microseconds).
    package static let recheckInterval: TimeInterval = 0.25

    /// The view is in a window.
    package var isInWindow = false
    /// The window is seen: on macOS, not occluded (`NSWindow.occlusionState`) and not
    /// miniaturised; `true` elsewhere.
    package var isWindowSeen = true
    /// The view or one of its ancestors is hidden.
    package var isHidden = false
    /// The view's opacity times its ancestors' (`1`: opaque).
    package var opacity = 1.0
    /// The view's frame in its window's coordinates; `nil`: not known (SwiftUI, whose
    /// `onAppear`/`onDisappear` say whether it is on screen: ``isInWindow``), which counts as inside.
    package var frame: CGRect?
    /// The bounds of each ancestor that clips its subviews, and the window's, in the window's
    /// coordinates; empty: nothing clips it (the frame alone decides).
    package var clips: [CGRect] = []
    /// The app's word (`collectionView(_:didEndDisplaying:forItemAt:)` sets it `false`,
    /// `willDisplay` `true`); `true` by default.
    package var isDisplayed = true

    package init() {}

    /// The part of ``frame`` left inside every clip; `nil` when nothing of it is (or the frame
    /// is not known).
    package var visibleRect: CGRect? {
        guard var rect = frame?.standardized else { return nil }
        guard rect.width > 0, rect.height > 0 else { return nil }
        for clip in clips {
            rect = rect.intersection(clip.standardized)
            guard !rect.isNull, rect.width > 0, rect.height > 0 else { return nil }
        }
        return rect
    }

    /// Whether the view is seen: every condition above holds.
    package var isVisible: Bool {
        isInWindow && isWindowSeen && isDisplayed && !isHidden && opacity > Self.minimumOpacity
            && (frame == nil || visibleRect != nil)
    }

    /// Whether its animation would play if the view were seen (``AnimationPlayback/wouldRunIfVisible``):
    /// `false` for a still image, a finished loop, playback stopped, the app in the
    /// background or Reduce Motion on. Only such a view needs its geometry checked.
    package var wantsToPlay = true

    /// Whether the view should check its geometry again at ``recheckInterval``: it is in a
    /// window, where scrolling can move it (and a cell's reuse hide it) without telling it, and
    /// its animation would play if seen. Outside one, joining a window tells it; a view with no
    /// known frame has no geometry to check; a view with nothing to play wakes nothing (a screen
    /// of still avatars, a finished sticker, the app in the background).
    package var needsPeriodicCheck: Bool {
        isInWindow && frame != nil && wantsToPlay
    }
}
