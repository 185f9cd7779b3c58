#if canImport(Darwin) && !os(macOS)
import CachedImageCore
import Foundation
#if canImport(UIKit) && !os(watchOS)
@preconcurrency import UIKit
#endif

/// Connects the disk cache's ``BackgroundExecutionGate`` to the platform, once per process:
/// installs ``ExpiringActivityAssertions`` and reports the app's lifecycle (UIKit's
/// `didEnterBackground` and `willEnterForeground` notifications). An app extension, which is
/// never told, and a watchOS app count as possibly suspended at any time: every locked disk
/// operation there runs inside an expiring activity. macOS does not suspend a process holding
/// a lock and installs nothing.
///
/// `AppLifecycleObserver.install(for:)` calls ``installOnce()``.
@MainActor
enum BackgroundExecutionObserver {
    private static var observers: [any NSObjectProtocol]?

    static func installOnce() {
        guard observers == nil else { return }
        let gate = BackgroundExecutionGate.shared
        #if canImport(UIKit) && !os(watchOS)
        let center = NotificationCenter.default
        observers = [
            center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil) { _ in
                gate.didEnterBackground()
            },
            center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil) { _ in
                gate.didBecomeActive()
            },
        ]
        gate.install(ExpiringActivityAssertions(), lifecycle: currentLifecycle())
        #else
        observers = []
        gate.install(ExpiringActivityAssertions(), lifecycle: .unknown)
        #endif
    }

    #if canImport(UIKit) && !os(watchOS)
    /// The app's state now; `.unknown` in an app extension (no `UIApplication`; reached through
    /// the Objective-C runtime, since `UIApplication.shared` is unavailable to extensions).
    private static func currentLifecycle() -> BackgroundExecutionState.Lifecycle {
        guard Bundle.main.bundleURL.pathExtension != "appex",
              let application = UIApplication.value(forKey: "sharedApplication") as? UIApplication
        else { return .unknown }
        return application.applicationState == .background ? .background : .active
    }
    #endif
}
#endif
