import Dispatch

/// Monotonic timestamps in seconds, for measuring latencies (never affected by wall-clock changes).
enum MonotonicTime {
    /// Seconds since an arbitrary fixed point.
    static func now() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}
