import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

extension MemoryCacheTests {
    // MARK: - Releasing values

    /// A value that notes, when it is freed, whether the cache's lock was held at that moment.
    private final class Probe: @unchecked Sendable {
        final class Recorder: @unchecked Sendable {
            weak var cache: MemoryCache<Int, Probe>?
            var released = 0
            var releasedUnderLock = 0
        }

        let recorder: Recorder

        init(_ recorder: Recorder) {
            self.recorder = recorder
        }

        deinit {
            recorder.released += 1
            if recorder.cache?.isLocked == true { recorder.releasedUnderLock += 1 }
        }
    }

    @Test func valuesLeavingTheCacheAreFreedAfterItsLockIsReleased() {
        let clock = CountingClock()
        let cache = MemoryCache<Int, Probe>(costLimit: 10, countLimit: 8, clock: clock)
        let recorder = Probe.Recorder()
        recorder.cache = cache
        func store(_ key: Int, cost: Int = 1, expiresAt: Date? = nil) {
            cache.setValue(Probe(recorder), forKey: key, cost: cost, expiresAt: expiresAt)
        }

        for key in 0..<20 { store(key) } // evicted by count
        store(19) // replaced
        store(19, cost: 11) // too costly: the old value is dropped
        store(30, expiresAt: clock.now + 10)
        store(31, expiresAt: clock.now + 10)
        clock.advance(by: 10)
        #expect(cache.value(forKey: 30) == nil) // expired on read
        #expect(cache.removeValue(forKey: 31) == nil) // expired on removal
        store(18, expiresAt: clock.now) // not in the future: the old value is dropped
        for key in 40..<45 { store(key, cost: 2) } // evicted by cost
        cache.trim(toCost: 4)
        cache.costLimit = 2
        cache.trim(toCount: 0)
        for key in 50..<54 { store(key) }
        cache.removeAll()

        #expect(cache.count == 0)
        #expect(recorder.released == 20 + 1 + 1 + 2 + 1 + 5 + 4)
        #expect(recorder.releasedUnderLock == 0)
    }

    // MARK: - Concurrency

    @Test func concurrentAccessKeepsTheInvariants() async {
        let cache = MemoryCache<Int, [UInt8]>(costLimit: 5_000, countLimit: 200)
        await withTaskGroup(of: Bool.self) { group in
            for task in 0..<16 {
                group.addTask {
                    var random = SeededRandom(seed: UInt64(task))
                    var withinLimits = true
                    for _ in 0..<4_000 {
                        let key = Int.random(in: 0..<500, using: &random)
                        switch Int.random(in: 0..<10, using: &random) {
                        case 0..<5:
                            if let value = cache.value(forKey: key) {
                                withinLimits = withinLimits && value.first == UInt8(key % 256)
                            }
                        case 5..<9:
                            let cost = Int.random(in: 1...100, using: &random)
                            cache.setValue([UInt8(key % 256)], forKey: key, cost: cost)
                        default:
                            cache.removeValue(forKey: key)
                        }
                        withinLimits = withinLimits && cache.totalCost <= 5_000 && cache.count <= 200
                    }
                    return withinLimits
                }
            }
            for await ok in group {
                #expect(ok)
            }
        }
        #expect(cache.invariantViolations() == [])
        #expect(cache.totalCost <= cache.costLimit)
    }
}
