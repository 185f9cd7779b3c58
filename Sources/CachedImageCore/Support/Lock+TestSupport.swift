#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Inspection for tests: nothing in the library calls this.
extension Lock {
    /// Whether the lock is held at this moment, by any thread (this one included).
    var isLocked: Bool {
        #if canImport(Darwin)
        guard os_unfair_lock_trylock(mutex) else { return true }
        #else
        guard pthread_mutex_trylock(mutex) == 0 else { return true }
        #endif
        unlock()
        return false
    }
}
