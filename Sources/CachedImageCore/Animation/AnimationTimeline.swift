import Foundation

/// Which frame of an animation is on screen after a given time, and when it changes: the clock
/// a player follows. Playing by elapsed time (instead of counting frames) keeps the animation's
/// speed when decoding falls behind: late frames are skipped, as browsers do.
///
/// ```swift
/// let timeline = AnimationTimeline(info)
/// let position = timeline.position(at: elapsed)   // show position.frame until position.nextChange
/// ```
package struct AnimationTimeline: Sendable, Hashable {
    /// The animation's timing.
    package let info: AnimatedImageInfo
    /// `ends[i]`: when frame `i` stops showing, from the start of a pass.
    private let ends: [TimeInterval]

    /// Where playback is at some moment.
    package struct Position: Sendable, Hashable {
        /// The frame to show.
        package var frame: Int
        /// Elapsed time at which the next frame is due; `nil` once the animation has finished
        /// (it then rests on its last frame).
        package var nextChange: TimeInterval?
        /// Completed passes through every frame.
        package var completedLoops: Int
    }

    package init(_ info: AnimatedImageInfo) {
        self.info = info
        var total: TimeInterval = 0
        ends = info.frameDelays.map { delay in
            total += delay
            return total
        }
    }

    /// The position `elapsed` seconds after playback started (pauses excluded).
    package func position(at elapsed: TimeInterval) -> Position {
        let duration = ends.last ?? 0
        guard info.frameCount > 0, duration > 0 else {
            return Position(frame: 0, nextChange: nil, completedLoops: 0)
        }
        // Any clock reading gives a position: NaN is the start, and passes past what an `Int`
        // holds (an infinite or absurd elapsed time) count as "very many".
        let elapsed = elapsed.isNaN ? 0 : max(0, elapsed)
        let passes = (elapsed / duration).rounded(.down)
        let loops = passes < Double(Int.max / 2) ? Int(passes) : Int.max / 2
        if info.loopCount > 0 && loops >= info.loopCount {
            return Position(frame: info.frameCount - 1, nextChange: nil, completedLoops: info.loopCount)
        }
        let offset = elapsed - Double(loops) * duration
        // The first frame whose end is after `offset` (binary search over the pass).
        var low = 0
        var high = ends.count - 1
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] > offset { high = middle } else { low = middle + 1 }
        }
        return Position(frame: low, nextChange: Double(loops) * duration + ends[low], completedLoops: loops)
    }
}
