import Foundation

/// The monotonic time an animation plays by, injectable so tests move it instead of sleeping.
///
/// Times are seconds on an arbitrary monotonic scale; only differences matter. A player never
/// reads the clock while it is paused, hidden or in the background, so time spent there is not
/// played (see ``AnimationPlayback``).
package protocol AnimationClock: Sendable {
    /// The current time, in seconds.
    var now: TimeInterval { get }
    /// Returns once ``now`` has reached `deadline`; throws `CancellationError` when the calling
    /// task is cancelled first.
    func sleep(until deadline: TimeInterval) async throws
}

/// The real clock: system uptime (`ProcessInfo.systemUptime`, which stops while the device
/// sleeps) and `Task.sleep`.
package struct SystemAnimationClock: AnimationClock {
    package init() {}

    package var now: TimeInterval { ProcessInfo.processInfo.systemUptime }

    package func sleep(until deadline: TimeInterval) async throws {
        let wait = max(0, deadline - now)
        try await Task.sleep(nanoseconds: UInt64(min(wait, 3_600) * 1_000_000_000))
    }
}
