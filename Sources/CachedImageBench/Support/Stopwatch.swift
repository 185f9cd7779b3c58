import Dispatch

/// A monotonic clock in nanoseconds (`DispatchTime`, not affected by wall-clock changes).
enum Stopwatch {
    @inline(__always)
    static func nanos() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Runs `body` once and returns the elapsed nanoseconds.
    @inline(__always)
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = nanos()
        try body()
        return Double(nanos() - start)
    }
}
