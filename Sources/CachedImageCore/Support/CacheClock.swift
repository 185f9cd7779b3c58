import Foundation

/// The source of wall-clock time for everything in the cache that ages: HTTP freshness,
/// memory-cache entry lifetimes and disk-cache access order.
///
/// Inject your own clock to test time-dependent behaviour without sleeping:
///
/// ```swift
/// final class ManualClock: CacheClock, @unchecked Sendable {
///     var now = Date(timeIntervalSince1970: 0)
/// }
/// ```
@usableFromInline
package protocol CacheClock: Sendable {
    /// The current date.
    var now: Date { get }
}

/// The real clock: `Date()`.
@usableFromInline
package struct SystemClock: CacheClock {
    /// The system clock.
    @usableFromInline
    package init() {}

    @usableFromInline
    package var now: Date { Date() }
}
