/// Inspection for tests: nothing in the library calls these.
extension MemoryCache {
    /// Which internal queue holds `key`.
    func queue(of key: Key) -> MemoryCacheQueueID? {
        storage.withLock { storage in
            storage.slots[key].map { storage.nodes[Int($0)].queue }
        }
    }

    /// Broken structural invariants, empty when consistent.
    func invariantViolations() -> [String] {
        storage.withLock { $0.invariantViolations() }
    }

    /// Whether the cache's lock is held at this moment, by any thread (this one included).
    var isLocked: Bool { storage.isLocked }
}
