import CachedImageCore
import Foundation

/// `--only memloop`: the shipped cache alone, one thread, a get-hit loop and a set-at-limit loop
/// per key kind, each in its own non-inlined function. Made for instruction counts, which are
/// repeatable where wall time is not (a shared machine):
///
/// ```sh
/// valgrind --tool=callgrind --callgrind-out-file=cg.out .build/release/cachedimage-bench --only memloop
/// callgrind_annotate --inclusive=yes cg.out | grep MemoryLoopBench
/// ```
struct MemoryLoopBench {
    let options: BenchOptions
    let keyCount = 10_000
    var operations: Int { options.pick(quick: 200_000, full: 2_000_000) }

    func run() {
        let payloads = (0..<(2 * keyCount)).map { Payload(id: $0) }
        let ints = Array(0..<(2 * keyCount))
        let urls = ints.map { "https://img.example.com/p/\(100_000 + $0).jpg" }
        var rng = SplitMix(seed: 3)
        let hitOrder = (0..<operations).map { _ in Int.random(in: 0..<keyCount, using: &rng) }
        var table = Table(
            "Memory cache loops (shipped cache only): ns per operation, one run of \(Format.grouped(operations)) ops",
            columns: ["loop", "Int keys", "URL keys"]
        )
        let intHit = Self.getHitLoop(keys: ints, payloads: payloads, order: hitOrder, keyCount: keyCount)
        let urlHit = Self.getHitLoop(keys: urls, payloads: payloads, order: hitOrder, keyCount: keyCount)
        table.add(["get hit", Format.number(intHit, 1), Format.number(urlHit, 1)])
        let intSet = Self.setAtLimitLoop(keys: ints, payloads: payloads, operations: operations, keyCount: keyCount)
        let urlSet = Self.setAtLimitLoop(keys: urls, payloads: payloads, operations: operations, keyCount: keyCount)
        table.add(["set at limit", Format.number(intSet, 1), Format.number(urlSet, 1)])
        addExpiryRows(to: &table, ints: ints, urls: urls, payloads: payloads, order: hitOrder)
        table.print(note: "10,000 resident keys, cost 1 each; set cycles over 20,000 keys into a 10,000 limit.")
    }

    @inline(never)
    static func getHitLoop<Key: Hashable & Sendable>(keys: [Key], payloads: [Payload], order: [Int], keyCount: Int) -> Double {
        let cache = MemoryCache<Key, Payload>(costLimit: keyCount)
        for i in 0..<keyCount { cache.setValue(payloads[i], forKey: keys[i], cost: 1) }
        return timedGets(cache, keys: keys, order: order)
    }

    @inline(never)
    static func timedGets<Key: Hashable & Sendable>(_ cache: MemoryCache<Key, Payload>, keys: [Key], order: [Int]) -> Double {
        let start = Stopwatch.nanos()
        var found = 0
        for index in order where cache.value(forKey: keys[index]) != nil { found += 1 }
        precondition(found == order.count)
        return Double(Stopwatch.nanos() - start) / Double(order.count)
    }

    @inline(never)
    static func setAtLimitLoop<Key: Hashable & Sendable>(keys: [Key], payloads: [Payload], operations: Int, keyCount: Int) -> Double {
        let cache = MemoryCache<Key, Payload>(costLimit: keyCount)
        for i in 0..<keyCount { cache.setValue(payloads[i], forKey: keys[i], cost: 1) }
        let start = Stopwatch.nanos()
        var index = keyCount
        for _ in 0..<operations {
            cache.setValue(payloads[index], forKey: keys[index], cost: 1)
            index += 1
            if index == keys.count { index = 0 }
        }
        return Double(Stopwatch.nanos() - start) / Double(operations)
    }
}
