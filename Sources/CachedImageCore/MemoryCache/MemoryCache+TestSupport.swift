#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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
    var isLocked: Bool {
        #if canImport(Darwin)
        guard os_unfair_lock_trylock(storage.lock.mutex) else { return true }
        #else
        guard pthread_mutex_trylock(storage.lock.mutex) == 0 else { return true }
        #endif
        storage.lock.unlock()
        return false
    }
}
