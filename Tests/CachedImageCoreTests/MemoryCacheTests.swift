import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

@Suite("MemoryCache")
struct MemoryCacheTests {
    // MARK: - Basics

    @Test func storesReplacesAndRemovesValues() {
        let cache = MemoryCache<String, String>(costLimit: 100)
        #expect(cache.value(forKey: "a") == nil)

        cache.setValue("one", forKey: "a", cost: 10)
        cache.setValue("two", forKey: "b", cost: 20)
        #expect(cache.value(forKey: "a") == "one")
        #expect(cache.value(forKey: "b") == "two")
        #expect(cache.count == 2)
        #expect(cache.totalCost == 30)

        cache.setValue("uno", forKey: "a", cost: 5)
        #expect(cache.value(forKey: "a") == "uno")
        #expect(cache.count == 2)
        #expect(cache.totalCost == 25)

        #expect(cache.removeValue(forKey: "a") == "uno")
        #expect(cache.removeValue(forKey: "a") == nil)
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.count == 1)
        #expect(cache.totalCost == 20)

        cache.removeAll()
        #expect(cache.count == 0)
        #expect(cache.totalCost == 0)
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.invariantViolations().isEmpty)
    }

    @Test func aValueCostingMoreThanTheLimitIsNotStoredAndDropsTheOldValue() {
        let cache = MemoryCache<Int, String>(costLimit: 100)
        cache.setValue("small", forKey: 1, cost: 40)
        cache.setValue("kept", forKey: 2, cost: 40)

        cache.setValue("huge", forKey: 3, cost: 101)
        #expect(cache.value(forKey: 3) == nil)

        // Replacing with an oversize value must not leave the stale value behind.
        cache.setValue("huge", forKey: 1, cost: 500)
        #expect(cache.value(forKey: 1) == nil)
        #expect(cache.value(forKey: 2) == "kept")
        #expect(cache.totalCost == 40)

        // Exactly the limit fits (and evicts everything else).
        cache.setValue("exact", forKey: 4, cost: 100)
        #expect(cache.value(forKey: 4) == "exact")
        #expect(cache.totalCost == 100)
        #expect(cache.count == 1)
    }

    @Test func negativeCostsCountAsZero() {
        let cache = MemoryCache<Int, Int>(costLimit: 10)
        cache.setValue(1, forKey: 1, cost: -50)
        #expect(cache.totalCost == 0)
        #expect(cache.value(forKey: 1) == 1)
    }

    @Test func countLimitIsEnforced() {
        let cache = MemoryCache<Int, Int>(costLimit: .max, countLimit: 3)
        for key in 0..<10 {
            cache.setValue(key, forKey: key, cost: 1)
            #expect(cache.count <= 3)
        }
        #expect(cache.count == 3)
        #expect(cache.value(forKey: 9) == 9)

        let empty = MemoryCache<Int, Int>(costLimit: .max, countLimit: 0)
        empty.setValue(1, forKey: 1, cost: 0)
        #expect(empty.value(forKey: 1) == nil)
        #expect(empty.count == 0)
    }

    // MARK: - Model-based property test

    @Test(arguments: [1, 2, 3, 4, 5])
    func randomOperationsKeepLimitsAndAgreeWithAModel(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let cache = MemoryCache<Int, String>(costLimit: 1_000, countLimit: 40)
        // The model knows the last value written per key; the cache may have evicted it, but
        // must never return anything else, nor anything after a removal.
        var model: [Int: String] = [:]
        var generation = 0

        for step in 0..<5_000 {
            let key = Int.random(in: 0..<120, using: &random)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<45:
                let got = cache.value(forKey: key)
                #expect(got == nil || got == model[key], "step \(step): stale value for \(key)")
            case 45..<85:
                generation += 1
                let value = "\(key)#\(generation)"
                let cost = Int.random(in: 0...120, using: &random)
                cache.setValue(value, forKey: key, cost: cost)
                model[key] = value
                // A value that fits is present right after it was stored.
                if cost <= cache.costLimit {
                    #expect(cache.value(forKey: key) == value, "step \(step): fresh value missing")
                } else {
                    #expect(cache.value(forKey: key) == nil, "step \(step): oversize value kept")
                }
            case 85..<93:
                let removed = cache.removeValue(forKey: key)
                #expect(removed == nil || removed == model[key])
                model[key] = nil
                #expect(cache.value(forKey: key) == nil)
            case 93..<96:
                cache.trim(toCost: Int.random(in: 0...1_000, using: &random))
            case 96..<98:
                cache.trim(toCount: Int.random(in: 0...40, using: &random))
            case 98:
                cache.costLimit = Int.random(in: 50...1_500, using: &random)
            default:
                cache.countLimit = Int.random(in: 1...60, using: &random)
            }
            #expect(cache.totalCost <= cache.costLimit, "step \(step)")
            #expect(cache.count <= cache.countLimit, "step \(step)")
            if step % 250 == 0 {
                #expect(cache.invariantViolations() == [], "step \(step)")
            }
        }
        #expect(cache.invariantViolations() == [])
    }

    // MARK: - S3-FIFO behaviour

    @Test func aScanOfOneHitWondersDoesNotEvictFrequentlyUsedEntries() {
        let cache = MemoryCache<String, Int>(costLimit: 100)
        let hot = (0..<20).map { "hot-\($0)" }
        for (index, key) in hot.enumerated() {
            cache.setValue(index, forKey: key, cost: 1)
        }
        // Used again: these earned their place.
        for _ in 0..<3 {
            for key in hot { _ = cache.value(forKey: key) }
        }
        // Scroll past 1,000 images once each: ten times the whole cache.
        for item in 0..<1_000 {
            cache.setValue(item, forKey: "feed-\(item)", cost: 1)
        }
        for (index, key) in hot.enumerated() {
            #expect(cache.value(forKey: key) == index, "\(key) was evicted by a scan")
        }
        #expect(cache.totalCost <= 100)
    }

    @Test func aKeyEvictedFromTheSmallQueueComesBackIntoMain() throws {
        let cache = MemoryCache<String, Int>(costLimit: 100)
        cache.setValue(0, forKey: "returning", cost: 1)
        #expect(cache.queue(of: "returning") == .small)
        // Never read, so new keys push it out of the small queue into the ghosts: the cache is
        // full after 99 fillers, and the 100th evicts the oldest entry.
        for item in 0..<100 {
            cache.setValue(item, forKey: "filler-\(item)", cost: 1)
        }
        #expect(cache.value(forKey: "returning") == nil)

        cache.setValue(1, forKey: "returning", cost: 1)
        cache.setValue(1, forKey: "newcomer", cost: 1)
        #expect(cache.queue(of: "returning") == .main)
        #expect(cache.queue(of: "newcomer") == .small)

        // Consequence users see: another burst removes the newcomer but not the returning key.
        for item in 0..<150 {
            cache.setValue(item, forKey: "burst-\(item)", cost: 1)
        }
        #expect(cache.value(forKey: "returning") == 1)
        #expect(cache.value(forKey: "newcomer") == nil)
    }

    @Test func entriesReadWhileProbationaryArePromotedToMain() {
        let cache = MemoryCache<Int, Int>(costLimit: 100)
        cache.setValue(7, forKey: 7, cost: 1)
        _ = cache.value(forKey: 7)
        for item in 100..<200 {
            cache.setValue(item, forKey: item, cost: 1)
        }
        #expect(cache.queue(of: 7) == .main)
        #expect(cache.value(forKey: 7) == 7)
    }

    // MARK: - Scan adaptation

    @Test func onlyGhostsReturningInEvictionOrderGrowTheProbationaryShare() {
        func smallShare(afterReturning order: (Range<Int>) -> [Int]) -> Double {
            let cache = MemoryCache<Int, Int>(costLimit: 1_000)
            for key in 0..<1_100 { cache.setValue(key, forKey: key, cost: 1) }
            // Keys 1,000..<1,100 pushed out 0..<100 (never read) as small-queue ghosts.
            for key in order(0..<100) where cache.value(forKey: key) == nil {
                cache.setValue(key, forKey: key, cost: 1)
            }
            #expect(cache.invariantViolations().isEmpty)
            return cache.storage.withLock { $0.smallShare }
        }
        var rng = SystemRandomNumberGenerator()
        let scrolledBack = smallShare { Array($0.reversed()) }
        let scattered = smallShare { range in
            // Every 7th key, shuffled: no two consecutive returns were evicted side by side.
            Array(stride(from: range.lowerBound, to: range.upperBound, by: 7)).shuffled(using: &rng)
        }
        #expect(scrolledBack > 0.3, "a list scrolled back over turns the cache towards FIFO")
        // A shuffle can put two returns side by side now and then; one step is 0.008.
        #expect(scattered <= 0.12, "skewed reuse keeps (about) the tuned 10% probationary share")
    }

    @Test func scrollingAFeedDownAndBackUpKeepsAsManyItemsAsLRU() {
        // 2,000 items scrolled down and back up 20 times through a 500-entry cache: the most
        // recent 500 items are the best possible cache (LRU = optimal = 500 hits per turn).
        let feed = 2_000
        let cache = MemoryCache<Int, Int>(costLimit: 500)
        var hits = 0
        var turns = 0
        var position = 0
        var step = 1
        var requests = 0
        while turns < 20 {
            if cache.value(forKey: position) != nil {
                hits += 1
            } else {
                cache.setValue(position, forKey: position, cost: 1)
            }
            requests += 1
            position += step
            if position == feed || position < 0 {
                turns += 1
                step = -step
                position += 2 * step
            }
        }
        // LRU would hit 500 times per turn after the first pass; S3-FIFO with a fixed 10%
        // probationary queue kept about 80% of that.
        #expect(Double(hits) >= 0.9 * 500 * 19, "\(hits) hits in \(requests) requests")
        #expect(cache.invariantViolations().isEmpty)
    }

    // MARK: - Trimming and limits

    @Test func trimToCostAndCountEvictDownToTheTargetAndKeepTheLimits() {
        let cache = MemoryCache<Int, Int>(costLimit: 1_000)
        for key in 0..<50 {
            cache.setValue(key, forKey: key, cost: 10)
        }
        #expect(cache.totalCost == 500)

        cache.trim(toCost: 250)
        #expect(cache.totalCost <= 250)
        #expect(cache.costLimit == 1_000)

        cache.trim(toCount: 5)
        #expect(cache.count <= 5)
        #expect(cache.countLimit == .max)

        cache.trim(toCost: 0)
        #expect(cache.count == 0)
        #expect(cache.totalCost == 0)
        #expect(cache.invariantViolations().isEmpty)

        // Still fully usable afterwards.
        cache.setValue(1, forKey: 1, cost: 10)
        #expect(cache.value(forKey: 1) == 1)
    }

    @Test func trimPrefersKeepingFrequentlyUsedEntries() {
        let cache = MemoryCache<Int, Int>(costLimit: 100)
        for key in 0..<100 {
            cache.setValue(key, forKey: key, cost: 1)
        }
        let favourites = [3, 30, 60, 90]
        for _ in 0..<3 {
            for key in favourites { _ = cache.value(forKey: key) }
        }
        cache.trim(toCost: 10)
        for key in favourites {
            #expect(cache.value(forKey: key) == key)
        }
    }

    @Test func loweringLimitsEvictsImmediately() {
        let cache = MemoryCache<Int, Int>(costLimit: 1_000, countLimit: 100)
        for key in 0..<80 {
            cache.setValue(key, forKey: key, cost: 10)
        }
        cache.costLimit = 300
        #expect(cache.costLimit == 300)
        #expect(cache.totalCost <= 300)

        cache.countLimit = 7
        #expect(cache.countLimit == 7)
        #expect(cache.count <= 7)

        cache.costLimit = 5
        cache.setValue(1, forKey: 1, cost: 6)
        #expect(cache.value(forKey: 1) == nil, "the new limit also applies to new values")
        #expect(cache.totalCost <= 5)
        #expect(cache.invariantViolations().isEmpty)
    }
}
