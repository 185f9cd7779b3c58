#if canImport(UIKit) && !os(watchOS)
import CachedImageCore
import Foundation
@preconcurrency import UIKit

/// Background assertions from `UIApplication.beginBackgroundTask`, for the disk cache's
/// ``BackgroundExecutionGate`` in an app (``BackgroundCoverage``: an app extension has no
/// `UIApplication` and keeps core's `performExpiringActivity`).
///
/// Called from the disk cache's queue, never hopping to the main thread (which may be waiting
/// in a `flush()`): UIKit documents `beginBackgroundTask(withName:expirationHandler:)` and
/// `endBackgroundTask(_:)` as safe to call from any thread, though the SDK marks the class as
/// the main actor's. The expiration handler (on the main thread) tells the gate, which releases
/// the locks in flight and ends the task before the handler returns.
struct BackgroundTaskAssertions: BackgroundAssertionProviding {
    /// The app; reached through the Objective-C runtime, as `UIApplication.shared` is
    /// unavailable to code that extensions may link.
    let application: UIApplication

    func beginAssertion(named name: String, expired: @escaping @Sendable () -> Void) -> (any BackgroundAssertion)? {
        let task = BackgroundTask(application: application)
        let identifier = Self.anyThread {
            application.beginBackgroundTask(withName: name) { expired() }
        }
        guard identifier != .invalid else { return nil }
        task.identifier.withLock { $0 = identifier }
        return task
    }

    /// Runs a main-actor method UIKit documents as thread-safe from the calling thread.
    static func anyThread<T>(_ body: @MainActor () -> T) -> T {
        withoutActuallyEscaping(body) { body in
            unsafeBitCast(body, to: (() -> T).self)()
        }
    }
}

/// One background task, ended once.
private final class BackgroundTask: BackgroundAssertion, @unchecked Sendable {
    let application: UIApplication
    let identifier = Locked<UIBackgroundTaskIdentifier>(.invalid)

    init(application: UIApplication) {
        self.application = application
    }

    func end() {
        let identifier = identifier.withLock { identifier in
            defer { identifier = .invalid }
            return identifier
        }
        guard identifier != .invalid else { return }
        let application = application
        BackgroundTaskAssertions.anyThread { application.endBackgroundTask(identifier) }
    }
}
#endif
