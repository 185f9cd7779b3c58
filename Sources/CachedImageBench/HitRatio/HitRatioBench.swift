import CachedImageCore

/// Table 3: hit ratio of the shipped eviction policy (through `MemoryCache`'s public API, every
/// entry costing 1) against LRU, CLOCK, FIFO and Belady's optimal, at 1/5/10/25% of the working set.
struct HitRatioBench {
    let options: BenchOptions

    func run() {
        let keys = options.pick(quick: 20_000, full: 100_000)
        let requests = options.pick(quick: 200_000, full: 1_000_000)
        let feed = options.pick(quick: 5_000, full: 20_000)
        let traces = [
            Trace.zipf(alpha: 0.6, keys: keys, requests: requests),
            Trace.zipf(alpha: 0.8, keys: keys, requests: requests),
            Trace.zipf(alpha: 1.0, keys: keys, requests: requests),
            Trace.scroll(feed: feed, hot: feed / 4, hotShare: 0.5, requests: requests),
            Trace.scroll(feed: feed, hot: 0, hotShare: 0, requests: requests),
        ]
        var table = Table(
            "3. Hit ratio by eviction policy (\(Format.grouped(requests)) requests per trace)",
            columns: ["trace", "working set", "cache size", "MemoryCache (S3-FIFO)", "LRU", "CLOCK", "FIFO",
                      "Belady (optimal)", "shipped - LRU (pp)"]
        )
        var worstDelta = Double.infinity
        for trace in traces {
            let workingSet = trace.uniqueKeys
            for fraction in [0.01, 0.05, 0.10, 0.25] {
                let capacity = max(1, Int(Double(workingSet) * fraction))
                let shipped = Self.shippedHitRatio(trace, capacity: capacity)
                let lru = LRUPolicy.hitRatio(trace, capacity: capacity)
                let delta = (shipped - lru) * 100
                worstDelta = min(worstDelta, delta)
                table.add([
                    trace.name, Format.grouped(workingSet), "\(Int(fraction * 100))% (\(Format.grouped(capacity)))",
                    Format.percent(shipped), Format.percent(lru),
                    Format.percent(ClockPolicy.hitRatio(trace, capacity: capacity)),
                    Format.percent(FIFOPolicy.hitRatio(trace, capacity: capacity)),
                    Format.percent(BeladyPolicy.hitRatio(trace, capacity: capacity)),
                    (delta >= 0 ? "+" : "") + Format.number(delta, 1),
                ])
            }
        }
        table.print(note: "Target: shipped >= LRU - 0.5 pp on every row. Worst row: \(Format.number(worstDelta, 1)) pp.")
    }

    /// The shipped policy, driven through the public `MemoryCache` API with unit costs.
    static func shippedHitRatio(_ trace: Trace, capacity: Int) -> Double {
        let cache = MemoryCache<Int, Int>(costLimit: capacity)
        var hits = 0
        for key in trace.requests {
            if cache.value(forKey: key) != nil {
                hits += 1
            } else {
                cache.setValue(key, forKey: key, cost: 1)
            }
        }
        return Double(hits) / Double(trace.requests.count)
    }
}
