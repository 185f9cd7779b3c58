#if canImport(Darwin) && !os(macOS)
import CachedImageCore
import Foundation
#if canImport(UIKit) && !os(watchOS)
@preconcurrency import UIKit
#endif

/// Connects the disk cache's ``BackgroundExecutionGate`` to the platform, once per process, as
/// ``BackgroundCoverage`` decides. Every process's assertions come from
/// `ProcessInfo.performExpiringActivity` (core's ``ExpiringActivityAssertions``: Foundation,
/// callable from the disk cache's queue, available to apps since iOS 8.2). In an app, UIKit's
/// lifecycle notifications (`didEnterBackground`, `willEnterForeground`, delivered on the main
/// thread) only tell the gate whether the app is active, so nothing is asked in the
/// foreground; no UIKit call is made off the main thread. An app extension, which is never
/// told, and a watchOS app ask for one around every locked disk operation. macOS does not
/// suspend a process holding a lock and installs nothing.
///
/// `AppLifecycleObserver.install(for:)` calls ``installOnce()``.
@MainActor
enum BackgroundExecutionObserver {
    private static var observers: [any NSObjectProtocol]?

    static func installOnce() {
        guard observers == nil else { return }
        let gate = BackgroundExecutionGate.shared
        #if canImport(UIKit) && !os(watchOS)
        let process = ProcessKind.current
        // `UIApplication.shared` is unavailable to extensions: reached through the runtime (on
        // the main thread, as everything here).
        let application = process == .app ? UIApplication.value(forKey: "sharedApplication") as? UIApplication : nil
        let state: BackgroundExecutionState.Lifecycle? = application.map { $0.applicationState == .background ? .background : .active }
        let lifecycle = BackgroundCoverage.lifecycle(for: application == nil ? .appExtension : process, applicationState: state)
        if application != nil {
            let center = NotificationCenter.default
            observers = [
                center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil) { _ in
                    gate.didEnterBackground()
                },
                center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil) { _ in
                    gate.didBecomeActive()
                },
            ]
        } else {
            observers = []
        }
        gate.install(ExpiringActivityAssertions(), lifecycle: lifecycle)
        #else
        observers = []
        gate.install(ExpiringActivityAssertions(), lifecycle: .unknown)
        #endif
    }
}
#endif
