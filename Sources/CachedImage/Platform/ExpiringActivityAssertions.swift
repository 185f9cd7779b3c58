#if canImport(Darwin) && !os(macOS)
import CachedImageCore
import Dispatch
import Foundation

/// Background assertions from `ProcessInfo.performExpiringActivity`, for the disk cache's
/// ``BackgroundExecutionGate``: usable in apps (where it asks for background time as
/// `beginBackgroundTask` does) and in app extensions (where `UIApplication` is not), and
/// callable from the disk cache's queue (`UIApplication`'s methods belong to the main actor,
/// and hopping to the main thread from that queue could wait behind a `flush()` on it).
///
/// Each assertion is one activity: its block reports whether it was granted, then holds the
/// activity open until ``BackgroundAssertion/end()``; when the system calls the block again with
/// `expired == true`, the gate is told, waits for the locked operations in flight, and ends it.
struct ExpiringActivityAssertions: BackgroundAssertionProviding {
    func beginAssertion(named name: String, expired: @escaping @Sendable () -> Void) -> (any BackgroundAssertion)? {
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
            expired() // returns once the gate has ended the assertion
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
