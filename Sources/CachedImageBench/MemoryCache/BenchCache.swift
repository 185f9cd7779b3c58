import CachedImageCore

/// A memory cache the micro-benchmarks can drive. Implementations are final classes, and the
/// measuring loops are generic over them, so every call is specialised and direct.
protocol BenchCache: AnyObject, Sendable {
    associatedtype Key: Sendable
    /// Creates an empty cache holding at most `costLimit` total cost (every entry costs 1).
    init(costLimit: Int)
    func get(_ key: Key) -> Payload?
    func set(_ value: Payload, for key: Key)
}

/// The shipped cache, called through its public API from this module, as an app would.
final class ShippedMemoryCache<Key: Hashable & Sendable>: BenchCache {
    private let cache: MemoryCache<Key, Payload>

    init(costLimit: Int) { cache = MemoryCache(costLimit: costLimit) }

    @inline(__always)
    func get(_ key: Key) -> Payload? { cache.value(forKey: key) }

    @inline(__always)
    func set(_ value: Payload, for key: Key) { cache.setValue(value, forKey: key, cost: 1) }
}
