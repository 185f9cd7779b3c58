import Foundation

/// The decoded frames a player keeps, bounded by a byte budget.
///
/// When the whole loop fits, every frame stays after the first pass (no decoding afterwards).
/// When it does not, the frame needed furthest in the future is evicted first (in a loop, that is
/// the one just shown), and the frame on screen is never evicted, so the buffer holds what is
/// about to play. ``totalCost`` is what a player reports to the memory cache.
package struct AnimationFrameBuffer<Frame>: CustomStringConvertible {
    /// The most bytes of frames kept (the frame on screen is kept even when larger).
    package var costLimit: Int
    /// Frames in the animation (for playback-order distances).
    package let frameCount: Int
    /// The bytes the kept frames occupy.
    package private(set) var totalCost = 0
    private var frames: [Int: (frame: Frame, cost: Int)] = [:]

    package init(frameCount: Int, costLimit: Int) {
        self.frameCount = max(1, frameCount)
        self.costLimit = max(0, costLimit)
    }

    /// The kept frame at `index`, if any.
    package func frame(at index: Int) -> Frame? {
        frames[index]?.frame
    }

    /// The indices of the kept frames, ascending.
    package var indices: [Int] { frames.keys.sorted() }

    /// Keeps `frame` (which costs `cost` bytes) while `current` is on screen, evicting frames
    /// needed furthest in the future until the budget holds.
    package mutating func insert(_ frame: Frame, at index: Int, cost: Int, current: Int) {
        if let old = frames[index] { totalCost -= old.cost }
        frames[index] = (frame, cost)
        totalCost += cost
        trim(toCost: costLimit, current: current)
    }

    /// Evicts frames (never `current`) until ``totalCost`` is at most `limit`: memory pressure
    /// passes 0 to keep only the frame on screen.
    package mutating func trim(toCost limit: Int, current: Int) {
        guard totalCost > limit else { return }
        let victims = frames.keys
            .filter { $0 != current }
            .sorted { distance(from: current, to: $0) > distance(from: current, to: $1) }
        for victim in victims where totalCost > limit {
            totalCost -= frames.removeValue(forKey: victim)?.cost ?? 0
        }
    }

    /// Frames until `index` plays again, counting from `current` (0 for the current frame).
    private func distance(from current: Int, to index: Int) -> Int {
        ((index - current) % frameCount + frameCount) % frameCount
    }

    package var description: String {
        "AnimationFrameBuffer(\(indices), \(totalCost)/\(costLimit) bytes)"
    }
}
