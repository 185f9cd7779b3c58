#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

#if canImport(Darwin)
@usableFromInline typealias LockPrimitive = os_unfair_lock
#else
@usableFromInline typealias LockPrimitive = pthread_mutex_t
#endif

/// A value and the mutex that guards it, in one heap allocation: the value is the buffer's
/// header, the mutex its one tail element, whose address never moves.
@usableFromInline
final class LockStorage<Value>: ManagedBuffer<Value, LockPrimitive> {
    @usableFromInline
    static func make(_ value: Value) -> LockStorage<Value> {
        let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in value }, to: LockStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            #if canImport(Darwin)
            mutex.initialize(to: os_unfair_lock())
            #else
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
            #endif
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            #if !canImport(Darwin)
            pthread_mutex_destroy(mutex)
            #endif
            _ = mutex.deinitialize(count: 1)
        }
    }

    @inlinable @inline(__always)
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try withUnsafeMutablePointers { value, mutex in
            #if canImport(Darwin)
            os_unfair_lock_lock(mutex)
            defer { os_unfair_lock_unlock(mutex) }
            #else
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            #endif
            return try body(&value.pointee)
        }
    }
}

/// A non-recursive mutual-exclusion lock: `os_unfair_lock` on Apple platforms,
/// `pthread_mutex_t` elsewhere. Copies share the one lock.
@usableFromInline
struct Lock: @unchecked Sendable {
    @usableFromInline let storage = LockStorage<Void>.make(())

    @usableFromInline
    init() {}

    @inlinable @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try storage.withLock { _ in try body() }
    }
}

/// A value protected by a lock, allocated together with it. The only way to touch the value is
/// inside `withLock`; copies share the one value and lock.
///
/// `package`: the tool targets (loopback server, command line, benchmarks) use this same lock
/// through `ToolSupport`, so there is one lock wrapper in the package; apps never see it.
@usableFromInline
package struct Locked<State>: @unchecked Sendable {
    @usableFromInline let storage: LockStorage<State>

    @usableFromInline
    package init(_ state: State) {
        storage = LockStorage.make(state)
    }

    @inlinable @inline(__always)
    package func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        try storage.withLock(body)
    }

    /// A copy of the value, read with the lock held.
    @inlinable
    package var current: State {
        withLock { $0 }
    }
}
