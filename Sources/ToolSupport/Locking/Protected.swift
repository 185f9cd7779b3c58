import CachedImageCore

/// A value guarded by a lock, shared by the tool targets (the loopback server, the command line,
/// the benchmarks): CachedImageCore's own `Locked` (`os_unfair_lock` on Apple platforms,
/// `pthread_mutex_t` elsewhere, `package` access so apps never see it), so a benchmark baseline
/// built on it is not handicapped by a slower lock, and the package has one lock wrapper.
/// The only way to touch the value is inside `withLock(_:)`. Not recursive.
///
/// ```swift
/// let served = Protected(0)
/// let number = served.withLock { count in
///     count += 1
///     return count
/// }
/// ```
package typealias Protected<Value> = Locked<Value>
