import Foundation

/// Whether an animation plays, and how far it has played: the decisions behind every animated
/// image player, as a value the players drive and tests check.
///
/// An animation advances only while all of these hold:
/// - playback is requested (`isAnimating`, `startAnimating()`: the default),
/// - the view is seen (``AnimationVisibility``: in a window, nothing hiding it, on screen),
/// - the app is active (not in the background),
/// - Reduce Motion is off,
/// - its frames are available (the bytes arrived and parsed as an animation),
/// - it has not finished its loops.
///
/// Played time is banked whenever one of them stops holding, so time spent paused, hidden or
/// in the background is never played: a finite animation that was backgrounded halfway resumes
/// halfway. Every change takes the clock's current time (`at:`); nothing reads a clock itself.
package struct AnimationPlayback: Sendable, Equatable {
    /// Playback was asked for (`isAnimating` binding, `startAnimating()`); `true` by default.
    package private(set) var isRequestedPlaying = true
    /// The view is seen (``AnimationVisibility/isVisible``).
    package private(set) var isVisible = false
    /// The app is in the foreground.
    package private(set) var isAppActive = true
    /// Reduce Motion is on: the first frame stays.
    package private(set) var isReduceMotionEnabled = false
    /// The animation's timing once its frames are available; `nil` before the bytes arrive (or
    /// for a still image).
    package private(set) var animation: AnimatedImageInfo?
    /// Replaces the file's loop count when set (`0`: forever).
    package private(set) var loopCountOverride: Int?
    /// Playback rate: `2` plays twice as fast; `0` or less holds the current frame.
    package private(set) var speed: Double = 1
    /// The animation played all its loops and rests on its last frame.
    package private(set) var isFinished = false

    /// Animation time played before ``runningSince`` (pauses excluded, speed applied).
    private var banked: TimeInterval = 0
    /// Clock time at which the current run started; `nil` while not advancing.
    private var runningSince: TimeInterval?

    package init() {}

    /// Whether the animation is advancing now.
    package var isRunning: Bool { runningSince != nil }

    /// Whether every condition for advancing holds.
    package var shouldRun: Bool {
        isRequestedPlaying && isVisible && isAppActive && !isReduceMotionEnabled
            && animation != nil && !isFinished && speed > 0
    }

    /// Whether the animation would advance if its view were seen: every other condition holds.
    /// A view whose animation would not (a still image, a finished loop, playback stopped,
    /// the app in the background, Reduce Motion) has nothing to check its visibility for.
    package var wouldRunIfVisible: Bool {
        isRequestedPlaying && isAppActive && !isReduceMotionEnabled && animation != nil && !isFinished && speed > 0
    }

    /// The timeline followed: the file's timing with any loop count override.
    package var timeline: AnimationTimeline? {
        guard var info = animation else { return nil }
        if let loopCountOverride { info.loopCount = max(0, loopCountOverride) }
        return AnimationTimeline(info)
    }

    // MARK: Inputs

    /// Asks for playback or stops it. Asking again after the animation finished plays it again
    /// from the start.
    package mutating func setRequestedPlaying(_ value: Bool, at now: TimeInterval) {
        if value, !isRequestedPlaying, isFinished { restart() }
        isRequestedPlaying = value
        settle(at: now)
    }

    package mutating func setVisible(_ value: Bool, at now: TimeInterval) {
        isVisible = value
        settle(at: now)
    }

    package mutating func setAppActive(_ value: Bool, at now: TimeInterval) {
        isAppActive = value
        settle(at: now)
    }

    package mutating func setReduceMotionEnabled(_ value: Bool, at now: TimeInterval) {
        isReduceMotionEnabled = value
        settle(at: now)
    }

    /// The frames became available (`info`), or went away (`nil`: a new image is loading).
    /// Either starts the timeline from its beginning.
    package mutating func setAnimation(_ info: AnimatedImageInfo?, at now: TimeInterval) {
        animation = info
        restart()
        settle(at: now)
    }

    package mutating func setLoopCountOverride(_ count: Int?, at now: TimeInterval) {
        guard count != loopCountOverride else { return }
        bank(at: now)
        loopCountOverride = count
        // A larger count can un-finish; a smaller one may finish at once.
        isFinished = false
        settle(at: now)
    }

    package mutating func setSpeed(_ value: Double, at now: TimeInterval) {
        guard value != speed else { return }
        bank(at: now)
        speed = value.isFinite ? value : 1
        settle(at: now)
    }

    // MARK: Position

    /// Animation time played by `now` (speed applied, pauses excluded).
    package func elapsed(at now: TimeInterval) -> TimeInterval {
        guard let runningSince else { return banked }
        return banked + max(0, now - runningSince) * speed
    }

    /// The frame to show at `now`, and the animation time when it changes. A nanosecond of
    /// slack puts a player woken exactly at a change (give or take rounding, as with `speed`)
    /// on the new frame, never back on the old one with a deadline already past.
    package func position(at now: TimeInterval) -> AnimationTimeline.Position {
        timeline?.position(at: elapsed(at: now) + 1e-9) ?? .init(frame: 0, nextChange: nil, completedLoops: 0)
    }

    /// The clock time at which the animation reaches `animationTime`, while running.
    package func clockTime(reaching animationTime: TimeInterval) -> TimeInterval? {
        guard let runningSince, speed > 0 else { return nil }
        return runningSince + max(0, animationTime - banked) / speed
    }

    /// Re-evaluates the conditions at `now`: banks played time when advancing stops, starts a
    /// run when it may, and marks the animation finished once its loops are done.
    package mutating func settle(at now: TimeInterval) {
        if timeline != nil, position(at: now).nextChange == nil {
            bank(at: now)
            isFinished = true
        }
        if shouldRun {
            if runningSince == nil { runningSince = now }
        } else {
            bank(at: now)
        }
    }

    /// Moves the time played so far into ``banked`` and stops the run.
    private mutating func bank(at now: TimeInterval) {
        banked = elapsed(at: now)
        runningSince = nil
    }

    private mutating func restart() {
        banked = 0
        runningSince = nil
        isFinished = false
    }
}
