#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value guarded by a lock, shared by the tool targets (the loopback server, the command line,
/// the benchmarks). The only way to touch the value is inside ``withLock(_:)``.
///
/// The lock is the primitive CachedImageCore's own `Locked` uses (`os_unfair_lock` on Apple
/// platforms, `pthread_mutex_t` elsewhere), so a benchmark baseline built on it is not
/// handicapped by a slower lock. The library cannot use this type (a library product never
/// depends on a tool target), and `Synchronization.Mutex` would need macOS 15 / iOS 18 while the
/// package supports macOS 12. Not recursive.
///
/// ```swift
/// let served = Protected(0)
/// let number = served.withLock { count in
///     count += 1
///     return count
/// }
/// ```
package final class Protected<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written with `mutex` held.
    #if canImport(Darwin)
    @usableFromInline let mutex: UnsafeMutablePointer<os_unfair_lock>
    #else
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #endif
    @usableFromInline var value: Value

    /// A lock guarding `value`.
    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        #if canImport(Darwin)
        mutex.initialize(to: os_unfair_lock())
        #else
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        #endif
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(mutex)
        #endif
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held, giving it the value to read or change.
    @inlinable @inline(__always)
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        #if canImport(Darwin)
        os_unfair_lock_lock(mutex)
        defer { os_unfair_lock_unlock(mutex) }
        #else
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        #endif
        return try body(&value)
    }

    /// A copy of the value, read with the lock held.
    @inlinable
    package var current: Value {
        withLock { $0 }
    }
}
