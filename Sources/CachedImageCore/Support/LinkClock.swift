import Foundation

/// The monotonic clock the download queue reads to measure the link (``LinkGauge``): when a
/// transfer was sent, when its bytes arrived, when it last made progress. Not ``CacheClock``,
/// whose dates a test or the demo holds still or moves by days. Tests inject their own and move
/// it instead of sleeping.
package protocol LinkClock: Sendable {
    /// Seconds since an arbitrary origin, never going back.
    var now: TimeInterval { get }
    /// Returns once `seconds` have passed on this clock (throws when the task is cancelled).
    func sleep(for seconds: TimeInterval) async throws
}

/// The real clock: system uptime (`ProcessInfo.systemUptime`).
package struct SystemLinkClock: LinkClock {
    package init() {}

    package var now: TimeInterval { ProcessInfo.processInfo.systemUptime }

    package func sleep(for seconds: TimeInterval) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
    }
}
