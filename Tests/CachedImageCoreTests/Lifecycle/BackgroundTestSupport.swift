import Foundation
@testable import CachedImageCore

/// A platform whose background assertions the test grants or denies, and whose expiry the test
/// fires. Records what happened, in order, in `log`.
final class ScriptedAssertionProvider: BackgroundAssertionProviding {
    struct Granted: Sendable {
        let number: Int
        let expire: @Sendable () -> Void
    }

    private let state = Locked<(isGranting: Bool, granted: [Granted])>((true, []))
    let log = Recorder<String>()
    /// When set, an assertion's `end()` logs "ending N" and waits for this semaphore before it
    /// logs "ended N" (to hold the thread ending it).
    let heldEnd = Locked<DispatchSemaphore?>(nil)

    /// When set, `beginAssertion` grants (recording the assertion in `granted`), then signals
    /// `entered` and waits for `release` before it returns (a system still deciding).
    let heldBegin = Locked<(entered: DispatchSemaphore, release: DispatchSemaphore)?>(nil)

    init(granting: Bool = true) {
        state.withLock { $0.isGranting = granting }
    }

    var isGranting: Bool {
        get { state.withLock { $0.isGranting } }
        set { state.withLock { $0.isGranting = newValue } }
    }

    /// The assertions granted so far, in order.
    var granted: [Granted] { state.withLock { $0.granted } }

    func beginAssertion(named name: String, expired: @escaping @Sendable () -> Void) -> (any BackgroundAssertion)? {
        let number: Int? = state.withLock { state in
            guard state.isGranting else { return nil }
            state.granted.append(Granted(number: state.granted.count + 1, expire: expired))
            return state.granted.count
        }
        guard let number else {
            log.append("denied")
            return nil
        }
        log.append("began \(number)")
        if let held = heldBegin.withLock({ $0 }) {
            held.entered.signal()
            held.release.wait()
        }
        return Assertion(number: number, log: log, held: heldEnd.withLock { $0 })
    }

    private struct Assertion: BackgroundAssertion {
        let number: Int
        let log: Recorder<String>
        let held: DispatchSemaphore?
        func end() {
            if let held {
                log.append("ending \(number)")
                held.wait()
            }
            log.append("ended \(number)")
        }
    }
}

extension DiskCache {
    /// A cache with its own gate (none given: active, no provider), a test clock and a lock
    /// wait long enough never to give up in a test.
    static func forTesting(
        _ directory: URL,
        gate: BackgroundExecutionGate = BackgroundExecutionGate(),
        clock: DiskTestClock = DiskTestClock(),
        errorHandler: (@Sendable (DiskCache.Error) -> Void)? = nil,
        readEntryFile: @escaping @Sendable (String, String, Int) -> DiskCacheFileIO.ReadResult = DiskCacheFileIO.readEntry
    ) throws -> DiskCache {
        try DiskCache(
            directory: directory.standardizedFileURL, sizeLimit: 10_000_000, clock: clock, errorHandler: errorHandler,
            nameForKey: { KeyHasher.name(for: $0) }, readEntryFile: readEntryFile, backgroundGate: gate, lockWaitLimit: 60
        )
    }
}

/// Runs `body` on a thread of its own; `wait()` returns when it has returned (failing after a
/// generous limit instead of hanging).
final class BackgroundThread: Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        Thread.detachNewThread { [done, finished] in
            body()
            finished.withLock { $0 = true }
            done.signal()
        }
    }

    private let finished = Locked(false)

    func wait() -> Bool { done.wait(timeout: .now() + 60) == .success }

    /// Whether `body` has returned (without waiting).
    var isDone: Bool { finished.withLock { $0 } }
}
