import Foundation
@testable import CachedImageCore

/// A clock tests move by hand, so time-dependent behaviour is tested without sleeping.
final class ManualClock: CacheClock, Sendable {
    private let date: Locked<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        date = Locked(start)
    }

    var now: Date { date.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        date.withLock { $0 += seconds }
    }
}
