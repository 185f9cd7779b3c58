import Dispatch
import Foundation

/// Table 1: get-hit, get-miss, set at the limit, and a mixed Zipf workload, in ns per
/// operation, for the shipped cache, `NSCache` and a locked `Dictionary`, with integer and
/// URL-string keys, on 1 and 2 threads. Rounds interleave the three caches.
struct MemoryCacheBench {
    let options: BenchOptions

    /// Distinct keys resident in the cache for get-hit.
    let keyCount = 10_000
    var operations: Int { options.pick(quick: 100_000, full: 1_000_000) }
    var rounds: Int { options.pick(quick: 3, full: 5) }

    /// Per-operation kind results for one cache, key kind and thread count.
    /// Key positions to touch, identical for every cache.
    struct Orders: Sendable {
        var hit: [Int] = []
        var miss: [Int] = []
        var set: [Int] = []
        var mixed: [Int] = []
        var mixedDice: [UInt8] = []
    }

    struct Result {
        var getHit = Samples()
        var getMiss = Samples()
        var setAtLimit = Samples()
        var mixed = Samples()
    }

    func run() {
        let payloads = (0..<(2 * keyCount)).map { Payload(id: $0) }
        let orders = makeOrders()
        var table = Table(
            "1. Memory cache: ns per operation, median (min-max) of \(rounds) interleaved rounds of \(Format.grouped(operations)) ops",
            columns: ["cache", "keys", "threads", "get hit", "get miss", "set at limit", "mixed 80/20 Zipf",
                      "get hit vs NSCache", "set vs NSCache", "get hit vs Dictionary+lock", "set vs Dictionary+lock"]
        )
        for threads in [1, 2] {
            for urlKeys in [false, true] {
                let indices = Array(0..<(2 * keyCount))
                let strings = indices.map { "https://img.example.com/p/\(100_000 + $0).jpg" }
                var shipped = Result()
                var dictionary = Result()
                var foundation = Result()
                for _ in 0..<rounds {
                    if urlKeys {
                        measure(ShippedMemoryCache<String>.self, keys: strings, payloads: payloads, orders: orders, threads: threads, into: &shipped)
                        measure(NSCacheBaseline.self, keys: strings.map(FoundationKey.init), payloads: payloads, orders: orders, threads: threads, into: &foundation)
                        measure(LockedDictionary<String>.self, keys: strings, payloads: payloads, orders: orders, threads: threads, into: &dictionary)
                    } else {
                        measure(ShippedMemoryCache<Int>.self, keys: indices, payloads: payloads, orders: orders, threads: threads, into: &shipped)
                        measure(NSCacheBaseline.self, keys: indices.map(FoundationKey.init), payloads: payloads, orders: orders, threads: threads, into: &foundation)
                        measure(LockedDictionary<Int>.self, keys: indices, payloads: payloads, orders: orders, threads: threads, into: &dictionary)
                    }
                }
                let keyName = urlKeys ? "URL string (\(strings[0].count) chars)" : "Int"
                for (name, result) in [("MemoryCache (shipped)", shipped), ("NSCache", foundation), ("Dictionary + lock (no limit)", dictionary)] {
                    table.add([
                        name, keyName, "\(threads)",
                        result.getHit.summary(), result.getMiss.summary(), result.setAtLimit.summary(), result.mixed.summary(),
                        Format.ratio(result.getHit.median, to: foundation.getHit.median),
                        Format.ratio(result.setAtLimit.median, to: foundation.setAtLimit.median),
                        Format.ratio(result.getHit.median, to: dictionary.getHit.median),
                        Format.ratio(result.setAtLimit.median, to: dictionary.setAtLimit.median),
                    ])
                }
            }
        }
        table.print(note: """
        10,000 resident keys, every entry costs 1. get hit: shuffled lookups of resident keys. get miss: \
        lookups of 10,000 absent keys. set at limit: stores cycling over 20,000 keys into a cache \
        limited to 10,000 (each store of a new key evicts; the Dictionary has no limit, so it only \
        replaces). mixed: Zipf(0.8) over 20,000 keys, 80% get, 20% set on a miss or by dice. With 2 \
        threads each thread does the full op count; ns/op = wall time / ops per thread. Ratios are \
        medians divided by the baseline's median (below 1 = faster).
        """)
    }

    private func makeOrders() -> Orders {
        let resident = keyCount
        var rng = SplitMix(seed: 1)
        var orders = Orders()
        orders.hit = (0..<operations).map { _ in Int.random(in: 0..<resident, using: &rng) }
        orders.miss = (0..<operations).map { _ in resident + Int.random(in: 0..<resident, using: &rng) }
        orders.set = (0..<operations).map { _ in Int.random(in: 0..<(2 * resident), using: &rng) }
        let zipf = ZipfSampler(count: 2 * resident, alpha: 0.8)
        orders.mixed = (0..<operations).map { _ in zipf.sample(&rng) }
        orders.mixedDice = (0..<operations).map { _ in UInt8.random(in: 0..<5, using: &rng) }
        return orders
    }

    private func measure<C: BenchCache>(
        _ type: C.Type, keys: [C.Key], payloads: [Payload], orders: Orders, threads: Int, into result: inout Result
    ) {
        let resident = keyCount
        let operations = self.operations
        let hitOrder = orders.hit
        let missOrder = orders.miss
        let setOrder = orders.set
        let mixedOrder = orders.mixed
        let mixedDice = orders.mixedDice

        let cache = C(costLimit: resident)
        for index in 0..<resident { cache.set(payloads[index], for: keys[index]) }
        // Warm-up: one pass of hits.
        _ = loop(threads: threads) { for index in 0..<resident { _ = cache.get(keys[index]) } }

        result.getHit.add(loop(threads: threads) {
            var sink = 0
            for index in hitOrder { sink &+= cache.get(keys[index])?.id ?? 0 }
            blackHole(sink)
        } / Double(operations))
        result.getMiss.add(loop(threads: threads) {
            var sink = 0
            for index in missOrder { sink &+= cache.get(keys[index])?.id ?? 0 }
            blackHole(sink)
        } / Double(operations))
        result.setAtLimit.add(loop(threads: threads) {
            for index in setOrder { cache.set(payloads[index], for: keys[index]) }
        } / Double(operations))

        let mixedCache = C(costLimit: resident / 2)
        result.mixed.add(loop(threads: threads) {
            var sink = 0
            for (position, index) in mixedOrder.enumerated() {
                if mixedDice[position] == 0 {
                    mixedCache.set(payloads[index], for: keys[index])
                } else if let hit = mixedCache.get(keys[index]) {
                    sink &+= hit.id
                } else {
                    mixedCache.set(payloads[index], for: keys[index])
                }
            }
            blackHole(sink)
        } / Double(operations))
    }

    /// Runs `body` on `threads` threads at once; returns the wall time in nanoseconds.
    private func loop(threads: Int, _ body: @Sendable () -> Void) -> Double {
        if threads == 1 {
            return Stopwatch.time(body)
        }
        return Stopwatch.time {
            DispatchQueue.concurrentPerform(iterations: threads) { _ in body() }
        }
    }
}

/// Keeps a computed value alive so the optimiser cannot delete the loop that produced it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
