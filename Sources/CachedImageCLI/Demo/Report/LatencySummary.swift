/// Percentiles of view latencies (from the cell appearing to its image being decoded), in seconds.
public struct LatencySummary: Sendable, Hashable, Codable {
    /// Number of samples.
    public var count: Int
    /// Median.
    public var p50: Double
    /// 99th percentile.
    public var p99: Double

    /// Nearest-rank percentiles of `samples`, or `nil` when there are none.
    init?(_ samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func percentile(_ p: Double) -> Double {
            let rank = Int((p * Double(sorted.count)).rounded(.up))
            return sorted[min(max(rank, 1), sorted.count) - 1]
        }
        count = sorted.count
        p50 = percentile(0.5)
        p99 = percentile(0.99)
    }
}
