import CachedImageCore
import Foundation

extension MemoryLoopBench {
    /// The get-hit loop over entries stored with their own expiry date (one clock read and one
    /// date compare per hit), next to the plain loop above.
    func addExpiryRows(to table: inout Table, ints: [Int], urls: [String], payloads: [Payload], order: [Int]) {
        let int = Self.expiringGetHitLoop(keys: ints, payloads: payloads, order: order, keyCount: keyCount)
        let url = Self.expiringGetHitLoop(keys: urls, payloads: payloads, order: order, keyCount: keyCount)
        table.add(["get hit, entries with an expiry date", Format.number(int, 1), Format.number(url, 1)])
    }

    @inline(never)
    static func expiringGetHitLoop<Key: Hashable & Sendable>(keys: [Key], payloads: [Payload], order: [Int], keyCount: Int) -> Double {
        let cache = MemoryCache<Key, Payload>(costLimit: keyCount)
        let expiry = Date().addingTimeInterval(3_600)
        for i in 0..<keyCount { cache.setValue(payloads[i], forKey: keys[i], cost: 1, expiresAt: expiry) }
        return timedExpiringGets(cache, keys: keys, order: order)
    }

    /// A copy of `timedGets`, so instruction counts attribute the two loops separately.
    @inline(never)
    static func timedExpiringGets<Key: Hashable & Sendable>(_ cache: MemoryCache<Key, Payload>, keys: [Key], order: [Int]) -> Double {
        let start = Stopwatch.nanos()
        var found = 0
        for index in order where cache.value(forKey: keys[index]) != nil { found += 1 }
        precondition(found == order.count)
        return Double(Stopwatch.nanos() - start) / Double(order.count)
    }
}
