import Foundation

/// Foundation's `NSCache` with a total cost limit. Keys are Foundation objects built once, up
/// front (`FoundationKey`), so the loops measure the cache and not the bridging.
final class NSCacheBaseline: BenchCache, @unchecked Sendable {
    // @unchecked: NSCache is documented as thread-safe.
    private let cache = NSCache<NSObject, Payload>()

    init(costLimit: Int) {
        cache.totalCostLimit = costLimit
    }

    @inline(__always)
    func get(_ key: FoundationKey) -> Payload? { cache.object(forKey: key.object) }

    @inline(__always)
    func set(_ value: Payload, for key: FoundationKey) { cache.setObject(value, forKey: key.object, cost: 1) }
}

/// An `NSNumber` or `NSString` key for `NSCache`.
struct FoundationKey: @unchecked Sendable {
    // @unchecked: NSNumber and NSString are immutable.
    let object: NSObject

    init(_ value: Int) { object = NSNumber(value: value) }
    init(_ value: String) { object = NSString(string: value) }
}
