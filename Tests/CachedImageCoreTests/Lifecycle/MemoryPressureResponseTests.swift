import Testing
@testable import CachedImageCore

@Suite("Memory pressure")
struct MemoryPressureResponseTests {
    @Test("a warning trims the memory cache to a quarter of its limit, a critical level empties it, normal leaves it")
    func trimTargets() {
        #expect(MemoryPressureResponse.trimTarget(for: .normal, costLimit: 100_000_000) == nil)
        #expect(MemoryPressureResponse.trimTarget(for: .warning, costLimit: 100_000_000) == 25_000_000)
        #expect(MemoryPressureResponse.trimTarget(for: .critical, costLimit: 100_000_000) == 0)
        #expect(MemoryPressureResponse.trimTarget(for: .warning, costLimit: -1) == 0)
    }

    @Test("applied to a memory cache: what stays fits the target")
    func appliedToACache() throws {
        let cache = MemoryCache<String, Int>(costLimit: 1_000)
        for index in 0..<10 { cache.setValue(index, forKey: "\(index)", cost: 100) }
        let target = try #require(MemoryPressureResponse.trimTarget(for: .warning, costLimit: cache.costLimit))
        cache.trim(toCost: target)
        #expect(cache.totalCost <= 250)
        cache.trim(toCost: try #require(MemoryPressureResponse.trimTarget(for: .critical, costLimit: cache.costLimit)))
        #expect(cache.totalCost == 0)
    }
}
