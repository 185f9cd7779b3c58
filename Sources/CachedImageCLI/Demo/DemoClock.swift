import Foundation
import CachedImageCore
import ToolSupport

/// The simulated wall clock the demo's server (`Date` headers) and every client's freshness
/// rules read, so "a day later" is a clock step, not a sleep.
final class DemoClock: CacheClock, @unchecked Sendable {
    private let current: Protected<Date>

    init(start: Date) {
        current = Protected(start)
    }

    var now: Date {
        current.withLock { $0 }
    }

    /// Sets the simulated time.
    func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
