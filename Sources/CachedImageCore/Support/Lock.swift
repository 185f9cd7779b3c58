#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A non-recursive mutual-exclusion lock: `os_unfair_lock` on Apple platforms,
/// `pthread_mutex_t` elsewhere. Heap-allocated so its address never moves.
@usableFromInline
final class Lock: @unchecked Sendable {
    #if canImport(Darwin)
    @usableFromInline let mutex: UnsafeMutablePointer<os_unfair_lock>
    #else
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #endif

    @usableFromInline
    init() {
        #if canImport(Darwin)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: os_unfair_lock())
        #else
        mutex = .allocate(capacity: 1)
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

    @inlinable @inline(__always)
    func lock() {
        #if canImport(Darwin)
        os_unfair_lock_lock(mutex)
        #else
        pthread_mutex_lock(mutex)
        #endif
    }

    @inlinable @inline(__always)
    func unlock() {
        #if canImport(Darwin)
        os_unfair_lock_unlock(mutex)
        #else
        pthread_mutex_unlock(mutex)
        #endif
    }

    @inlinable @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A value protected by a ``Lock``. The only way to touch the value is inside `withLock`.
///
/// `package`: the tool targets (loopback server, command line, benchmarks) use this same lock
/// through `ToolSupport`, so there is one lock wrapper in the package; apps never see it.
@usableFromInline
package final class Locked<State>: @unchecked Sendable {
    @usableFromInline let lock = Lock()
    @usableFromInline var state: State

    @usableFromInline
    package init(_ state: State) {
        self.state = state
    }

    @inlinable @inline(__always)
    package func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// A copy of the value, read with the lock held.
    @inlinable
    package var current: State {
        withLock { $0 }
    }
}
