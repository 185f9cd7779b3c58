import Foundation

/// Runs a view model's deferred work on the main actor: the end of an off-screen grace period,
/// the trailing update of throttled progress. Time is read from `clock`, so tests inject a
/// scheduler over a manual clock and move it instead of sleeping.
package protocol ViewModelScheduler: Sendable {
    /// The time deadlines are measured against.
    var clock: any CacheClock { get }

    /// Runs `work` on the main actor once `delay` seconds have passed on `clock` (after the
    /// current main-actor turn for a delay of zero, never synchronously).
    @MainActor func schedule(after delay: TimeInterval, _ work: @escaping @MainActor () -> Void)
}

/// The scheduler of apps: real time, one main-actor task per deadline (never one per event).
package struct SystemViewModelScheduler: ViewModelScheduler {
    package let clock: any CacheClock = SystemClock()

    package init() {}

    @MainActor package func schedule(after delay: TimeInterval, _ work: @escaping @MainActor () -> Void) {
        Task { @MainActor in
            if delay > 0 {
                try? await Task.sleep(nanoseconds: UInt64(min(delay, 86_400) * 1e9))
            }
            work()
        }
    }
}
