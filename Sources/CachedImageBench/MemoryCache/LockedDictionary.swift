import ToolSupport

/// The floor: a `Dictionary` behind a lock, with no limit and no eviction at all.
final class LockedDictionary<Key: Hashable & Sendable>: BenchCache, Sendable {
    private let storage = Protected<[Key: Payload]>([:])

    init(costLimit: Int) {}

    @inline(__always)
    func get(_ key: Key) -> Payload? { storage.withLock { $0[key] } }

    @inline(__always)
    func set(_ value: Payload, for key: Key) { storage.withLock { $0[key] = value } }
}
