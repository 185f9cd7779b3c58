/// A count-bounded cache simulator: `access` returns whether the key was a hit and, on a miss,
/// inserts it.
protocol EvictionPolicy {
    init(capacity: Int)
    mutating func access(_ key: Int) -> Bool
}

extension EvictionPolicy {
    static func hitRatio(_ trace: Trace, capacity: Int) -> Double {
        var policy = Self(capacity: capacity)
        var hits = 0
        for key in trace.requests where policy.access(key) { hits += 1 }
        return Double(hits) / Double(trace.requests.count)
    }
}
