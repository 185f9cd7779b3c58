import Foundation

/// What an animation player does at one refresh of the display (a `CADisplayLink` tick, a
/// `TimelineView(.animation)` date): the frame-timing rule, the same for every platform and
/// tested on Linux with sequences of display timestamps.
///
/// - The frame to show is the one the timeline gives at the refresh's timestamp (played time,
///   pauses excluded: ``AnimationPlayback``), so a late refresh skips the frames it missed and
///   the animation keeps its speed, as browsers do.
/// - A refresh whose frame is the one on screen changes nothing: no redraw, no `body`.
/// - A due frame not decoded yet is decoded (the one on screen stays until then); otherwise the
///   next frame is prefetched, once per frame shown.
package struct AnimationDisplayStep: Equatable, Sendable {
    /// The frame to draw now; `nil`: keep the one on screen (no redraw).
    package var show: Int?
    /// The frame to decode now, if any.
    package var decode: Int?
    /// ``decode`` is the next frame, asked for ahead of time (once per frame shown).
    package var isPrefetch = false
    /// All loops played: rest on the last frame and stop refreshing.
    package var isFinished = false

    /// The step at display timestamp `timestamp` (the player's clock's scale).
    ///
    /// - Parameters:
    ///   - displayed: The frame on screen (`nil`: none yet).
    ///   - prefetchedAfter: The frame after which the next one was already asked for.
    ///   - isBuffered: Whether a frame is decoded and held.
    package init(
        _ playback: AnimationPlayback,
        at timestamp: TimeInterval,
        displayed: Int?,
        prefetchedAfter: Int?,
        isBuffered: (Int) -> Bool
    ) {
        let position = playback.position(at: timestamp)
        let frameCount = max(1, playback.animation?.frameCount ?? 1)
        var onScreen = displayed
        if displayed != position.frame {
            guard isBuffered(position.frame) else {
                decode = position.frame
                return
            }
            show = position.frame
            onScreen = position.frame
        }
        guard position.nextChange != nil else {
            isFinished = true
            return
        }
        let next = (position.frame + 1) % frameCount
        if onScreen == position.frame, prefetchedAfter != position.frame, !isBuffered(next) {
            decode = next
            isPrefetch = true
        }
    }

    /// The refresh rate an animation needs, in frames per second: enough for its shortest
    /// frame (a 100 ms GIF needs 10, not the display's 120), between 1 and `maximum`. A display
    /// link asks for it so it does not wake the app at the display's full rate.
    package static func framesPerSecond(for info: AnimatedImageInfo, maximum: Int = 120) -> Int {
        let shortest = info.frameDelays.filter { $0 > 0 && $0.isFinite }.min() ?? 0.1
        let rate = (1 / shortest).rounded(.up)
        return Int(min(Double(max(1, maximum)), max(1, rate)))
    }
}
