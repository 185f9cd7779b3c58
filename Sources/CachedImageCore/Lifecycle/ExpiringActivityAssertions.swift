#if canImport(Darwin) && !os(macOS)
import Dispatch
import Foundation

/// Background assertions from `ProcessInfo.performExpiringActivity` (Foundation, so core can
/// install them with no view and no UIKit), for the disk cache's ``BackgroundExecutionGate``:
/// what every process uses, apps included (see ``BackgroundCoverage``). Callable from the disk
/// cache's queue: it waits there for the system's decision, never under the gate's lock.
///
/// Each assertion is one activity: its block reports whether it was granted, then holds the
/// activity open until ``BackgroundAssertion/end()``; when the system calls the block again with
/// `expired == true`, the gate is told: it interrupts the locked operations in flight (their
/// lock released at once) and ends the assertion, and the block returns.
package struct ExpiringActivityAssertions: BackgroundAssertionProviding {
    package init() {}

    package func beginAssertion(named name: String, expired: @escaping @Sendable () -> Void) -> (any BackgroundAssertion)? {
        let activity = ExpiringActivity(expired: expired)
        ProcessInfo.processInfo.performExpiringActivity(withReason: name) { isExpired in
            activity.run(isExpired: isExpired)
        }
        return activity.waitUntilDecided() ? activity : nil
    }
}

/// One `performExpiringActivity`: granted or not, then held until ended.
private final class ExpiringActivity: BackgroundAssertion, @unchecked Sendable {
    private let expired: @Sendable () -> Void
    private let decided = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var isGranted: Bool?

    init(expired: @escaping @Sendable () -> Void) {
        self.expired = expired
    }

    /// The activity's block: called once with `false` (granted; held until ``end()``), and
    /// maybe later with `true` (expiring); or only with `true` (not granted).
    func run(isExpired: Bool) {
        lock.lock()
        let wasDecided = isGranted != nil
        if !wasDecided { isGranted = !isExpired }
        lock.unlock()
        if !wasDecided {
            decided.signal()
            if !isExpired { ended.wait() }
        } else if isExpired {
            expired() // never waits: the gate (or the thread installing it) ends the assertion
        }
    }

    func waitUntilDecided() -> Bool {
        decided.wait()
        lock.lock()
        defer { lock.unlock() }
        return isGranted == true
    }

    func end() {
        ended.signal()
    }
}
#endif
