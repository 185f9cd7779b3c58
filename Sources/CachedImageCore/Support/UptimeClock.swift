import Foundation

/// The monotonic clock the engine measures short spans with, injectable so tests move it instead
/// of sleeping: the download queue's link measures (``LinkGauge``: when a transfer was sent, when
/// its bytes arrived, when it last made progress) and an animation's playing time
/// (``AnimationPlayer``, which never reads it while paused, hidden or in the background, so time
/// spent there is not played).
///
/// Times are seconds on an arbitrary monotonic scale; only differences matter. Not
/// ``CacheClock``, whose dates a test or the demo holds still or moves by days.
package protocol UptimeClock: Sendable {
    /// The current time, in seconds, never going back.
    var now: TimeInterval { get }
    /// Returns once ``now`` has reached `deadline`; throws `CancellationError` when the calling
    /// task is cancelled first.
    func sleep(until deadline: TimeInterval) async throws
}

/// The real clock: system uptime (`ProcessInfo.systemUptime`, which stops while the device
/// sleeps) and `Task.sleep`.
package struct SystemUptimeClock: UptimeClock {
    package init() {}

    package var now: TimeInterval { ProcessInfo.processInfo.systemUptime }

    package func sleep(until deadline: TimeInterval) async throws {
        try await Task.sleep(nanoseconds: Self.nanoseconds(until: deadline, from: now))
    }

    /// The wait from `now` to `deadline`, at most an hour (a far deadline is slept in steps by
    /// its caller's loop, never overflowing `UInt64`).
    package static func nanoseconds(until deadline: TimeInterval, from now: TimeInterval) -> UInt64 {
        UInt64(min(max(0, deadline - now), 3_600) * 1_000_000_000)
    }
}
