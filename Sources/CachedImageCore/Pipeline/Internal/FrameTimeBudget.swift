import Dispatch

/// Time spent per frame on synchronous work (the first frame's disk reads): work may start
/// while the current frame's total is under the budget; a new frame starts the count again.
final class FrameTimeBudget: Sendable {
    private let budget: UInt64
    private let frame: UInt64
    private let now: @Sendable () -> UInt64
    private let state = Locked((frameStart: UInt64(0), spent: UInt64(0)))

    /// - Parameters:
    ///   - timePerFrame: Seconds of work allowed per frame.
    ///   - frameInterval: Seconds per frame.
    ///   - now: Monotonic nanoseconds (injectable for tests).
    init(
        timePerFrame: Double,
        frameInterval: Double,
        now: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }
    ) {
        budget = UInt64(max(0, timePerFrame) * 1e9)
        frame = UInt64(max(1e-6, frameInterval) * 1e9)
        self.now = now
    }

    /// The current time, when this frame's budget is not used up; `nil` otherwise.
    func begin() -> UInt64? {
        let time = now()
        return state.withLock { state in
            if time &- state.frameStart >= frame {
                state = (time, 0)
            }
            return state.spent < budget ? time : nil
        }
    }

    /// Adds the work begun at `start` to its frame.
    func end(_ start: UInt64) {
        let elapsed = now() &- start
        state.withLock { state in
            if start >= state.frameStart { state.spent &+= elapsed }
        }
    }
}
