/// The floor: a `Dictionary` behind a lock, with no limit and no eviction at all.
final class LockedDictionary<Key: Hashable & Sendable>: BenchCache, @unchecked Sendable {
    // @unchecked: `storage` is only touched inside `lock`.
    private let lock = BenchLock()
    private var storage: [Key: Payload] = [:]

    init(costLimit: Int) {}

    @inline(__always)
    func get(_ key: Key) -> Payload? { lock.withLock { storage[key] } }

    @inline(__always)
    func set(_ value: Payload, for key: Key) { lock.withLock { storage[key] = value } }
}
