import Dispatch

/// Monotonic timestamps in seconds, for measuring latencies (never affected by wall-clock changes).
enum MonotonicTime {
    /// Seconds since an arbitrary fixed point.
    static func now() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
