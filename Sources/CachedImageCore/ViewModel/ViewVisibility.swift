/// Whether a view is on screen, counted from its appear and disappear callbacks rather than
/// kept as one flag, so no order or count of callbacks can hide a view that is on screen.
///
/// SwiftUI can deliver a new branch's `onAppear` before the old branch's `onDisappear` (an
/// animated swap), lose or repeat a callback, or call `onDisappear` for a view that never
/// reported its appearance. The rules:
/// - Before any callback the view counts as on screen (a loader driven without callbacks, as
///   UIKit's, is always visible).
/// - Each appearance adds one; each disappearance removes one, never going below zero.
/// - The view is on screen while at least one appearance is outstanding.
///
/// So `appear(new), disappear(old)` leaves the view on screen; an extra `disappear` is absorbed;
/// a lost `disappear` keeps it on screen (the safe side: a load at full priority, never a visible
/// view left cancelled).
struct ViewVisibility: Sendable, Hashable {
    /// Appearances not yet matched by a disappearance.
    private(set) var appearances = 0
    /// Whether any callback arrived yet.
    private(set) var isReported = false

    /// Whether the view counts as on screen.
    var isOnScreen: Bool { !isReported || appearances > 0 }

    /// An `onAppear`.
    mutating func appear() {
        isReported = true
        appearances += 1
    }

    /// An `onDisappear`.
    mutating func disappear() {
        isReported = true
        appearances = max(0, appearances - 1)
    }
}
