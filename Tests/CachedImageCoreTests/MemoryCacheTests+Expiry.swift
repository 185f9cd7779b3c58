import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// A clock the test moves by hand; counts how often it is read.
final class CountingClock: CacheClock, Sendable {
    private let state = Locked((now: Date(timeIntervalSince1970: 1_000_000), reads: 0))

    var now: Date {
        state.withLock { state in
            state.reads += 1
            return state.now
        }
    }

    var reads: Int { state.withLock { $0.reads } }

    func advance(by seconds: TimeInterval) {
        state.withLock { $0.now += seconds }
    }
}

extension MemoryCacheTests {
    // MARK: - Expiry

    @Test func expiredEntriesAreMissesAndAreRemoved() {
        let clock = CountingClock()
        let cache = MemoryCache<String, Int>(costLimit: 100, entryLifetime: 60, clock: clock)
        cache.setValue(1, forKey: "a", cost: 10)
        clock.advance(by: 30)
        cache.setValue(2, forKey: "b", cost: 10)

        clock.advance(by: 29)
        #expect(cache.value(forKey: "a") == 1)

        clock.advance(by: 1) // "a" is exactly 60 s old
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.count == 1)
        #expect(cache.totalCost == 10)
        #expect(cache.value(forKey: "b") == 2)

        clock.advance(by: 31)
        #expect(cache.removeValue(forKey: "b") == nil, "an expired value is not handed back")
        #expect(cache.count == 0)
    }

    @Test func replacingAnEntryRestartsItsLifetime() {
        let clock = CountingClock()
        let cache = MemoryCache<String, Int>(costLimit: 100, entryLifetime: 10, clock: clock)
        cache.setValue(1, forKey: "a", cost: 1)
        clock.advance(by: 8)
        cache.setValue(2, forKey: "a", cost: 1)
        clock.advance(by: 8)
        #expect(cache.value(forKey: "a") == 2)
    }

    @Test func theClockIsNotReadWithoutALifetime() {
        let clock = CountingClock()
        let cache = MemoryCache<Int, Int>(costLimit: 10, clock: clock)
        for key in 0..<50 {
            cache.setValue(key, forKey: key, cost: 1)
            _ = cache.value(forKey: key)
        }
        cache.trim(toCost: 5)
        cache.costLimit = 3
        #expect(clock.reads == 0)
    }

    // MARK: - Per-entry expiry

    @Test func anEntryWithItsOwnExpiryIsAMissFromThatDateAndIsDropped() {
        let clock = CountingClock()
        let cache = MemoryCache<String, Int>(costLimit: 100, clock: clock)
        cache.setValue(1, forKey: "fresh", cost: 10, expiresAt: clock.now.addingTimeInterval(60))
        cache.setValue(2, forKey: "forever", cost: 10)

        clock.advance(by: 59)
        #expect(cache.value(forKey: "fresh") == 1)
        clock.advance(by: 1) // exactly at the expiry date
        #expect(cache.value(forKey: "fresh") == nil)
        #expect(cache.count == 1, "the expired entry is dropped, not just hidden")
        #expect(cache.totalCost == 10)

        clock.advance(by: 1_000_000)
        #expect(cache.value(forKey: "forever") == 2, "entries without an expiry never expire")
        #expect(cache.invariantViolations().isEmpty)
    }

    @Test func theEarlierOfTheEntryExpiryAndTheLifetimeApplies() {
        let clock = CountingClock()
        let cache = MemoryCache<String, Int>(costLimit: 100, entryLifetime: 60, clock: clock)
        cache.setValue(1, forKey: "short", cost: 1, expiresAt: clock.now.addingTimeInterval(10))
        cache.setValue(2, forKey: "long", cost: 1, expiresAt: clock.now.addingTimeInterval(3_600))

        clock.advance(by: 10)
        #expect(cache.value(forKey: "short") == nil, "its own date is earlier than the lifetime")
        #expect(cache.value(forKey: "long") == 2)
        clock.advance(by: 50)
        #expect(cache.value(forKey: "long") == nil, "the lifetime is earlier than its own date")
        #expect(cache.count == 0)
    }

    @Test func anExpiryNotInTheFutureStoresNothingAndDropsTheOldValue() {
        let clock = CountingClock()
        let cache = MemoryCache<String, Int>(costLimit: 100, clock: clock)
        cache.setValue(1, forKey: "a", cost: 5)
        // `Cache-Control: no-store` / `max-age=0`: the image must not be served from memory.
        cache.setValue(2, forKey: "a", cost: 5, expiresAt: clock.now)
        #expect(cache.value(forKey: "a") == nil)
        cache.setValue(3, forKey: "b", cost: 5, expiresAt: clock.now.addingTimeInterval(-1))
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.count == 0)
        #expect(cache.totalCost == 0)
    }

    @Test func replacingAnEntryReplacesItsExpiry() {
        let clock = CountingClock()
        let cache = MemoryCache<String, Int>(costLimit: 100, clock: clock)
        cache.setValue(1, forKey: "a", cost: 1, expiresAt: clock.now.addingTimeInterval(10))
        cache.setValue(2, forKey: "a", cost: 1)
        cache.setValue(3, forKey: "b", cost: 1)
        cache.setValue(4, forKey: "b", cost: 1, expiresAt: clock.now.addingTimeInterval(10))
        clock.advance(by: 20)
        #expect(cache.value(forKey: "a") == 2)
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.removeValue(forKey: "a") == 2)
    }

    @Test func removingAnExpiredEntryHandsNothingBack() {
        let clock = CountingClock()
        let cache = MemoryCache<String, Int>(costLimit: 100, clock: clock)
        cache.setValue(1, forKey: "a", cost: 1, expiresAt: clock.now.addingTimeInterval(5))
        clock.advance(by: 5)
        #expect(cache.removeValue(forKey: "a") == nil)
        #expect(cache.count == 0)
    }

    @Test func onlyEntriesWithAnExpiryReadTheClock() {
        let clock = CountingClock()
        let cache = MemoryCache<Int, Int>(costLimit: 100, clock: clock)
        for key in 0..<20 {
            cache.setValue(key, forKey: key, cost: 1)
        }
        for key in 0..<20 {
            _ = cache.value(forKey: key)
        }
        #expect(clock.reads == 0)
        cache.setValue(99, forKey: 99, cost: 1, expiresAt: Date.distantFuture)
        let afterSet = clock.reads
        #expect(cache.value(forKey: 99) == 99)
        #expect(clock.reads == afterSet + 1, "one clock read per hit on an expiring entry")
        _ = cache.value(forKey: 3)
        #expect(clock.reads == afterSet + 1)
    }
}
