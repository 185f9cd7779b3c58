#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Inspection for tests: nothing in the library calls these.
extension LockStorage {
    /// Whether the lock is held at this moment, by any thread (this one included).
    var isLocked: Bool {
        withUnsafeMutablePointerToElements { mutex in
            #if canImport(Darwin)
            guard os_unfair_lock_trylock(mutex) else { return true }
            os_unfair_lock_unlock(mutex)
            #else
            guard pthread_mutex_trylock(mutex) == 0 else { return true }
            pthread_mutex_unlock(mutex)
            #endif
            return false
        }
    }
}

extension Lock {
    /// Whether the lock is held at this moment, by any thread (this one included).
    var isLocked: Bool { storage.isLocked }
}

extension Locked {
    /// Whether the lock is held at this moment, by any thread (this one included).
    var isLocked: Bool { storage.isLocked }
}
