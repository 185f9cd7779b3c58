#if canImport(Darwin) && !os(macOS)
import CachedImageCore
import Foundation
#if canImport(UIKit) && !os(watchOS)
@preconcurrency import UIKit
#endif

/// Connects the disk cache's ``BackgroundExecutionGate`` to the platform, once per process, as
/// ``BackgroundCoverage`` decides: in an app, installs ``BackgroundTaskAssertions``
/// (`beginBackgroundTask`, in place of the `performExpiringActivity` a disk cache on a shared
/// directory installed by itself) and reports the app's lifecycle (UIKit's `didEnterBackground`
/// and `willEnterForeground` notifications), so nothing is asked in the foreground. An app
/// extension, which is never told, and a watchOS app keep `performExpiringActivity`, every
/// locked disk operation inside one. macOS does not suspend a process holding a lock and
/// installs nothing.
///
/// `AppLifecycleObserver.install(for:)` calls ``installOnce()``.
@MainActor
enum BackgroundExecutionObserver {
    private static var observers: [any NSObjectProtocol]?

    static func installOnce() {
        guard observers == nil else { return }
        let gate = BackgroundExecutionGate.shared
        #if canImport(UIKit) && !os(watchOS)
        let process = BackgroundCoverage.process(mainBundleURL: Bundle.main.bundleURL)
        // `UIApplication.shared` is unavailable to extensions: reached through the runtime.
        let application = process == .app ? UIApplication.value(forKey: "sharedApplication") as? UIApplication : nil
        let state: BackgroundExecutionState.Lifecycle? = application.map { $0.applicationState == .background ? .background : .active }
        let coverage = BackgroundCoverage.platformCoverage(for: application == nil ? .appExtension : process, applicationState: state)
        if let application, coverage.assertion == .backgroundTask {
            let center = NotificationCenter.default
            observers = [
                center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil) { _ in
                    gate.didEnterBackground()
                },
                center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil) { _ in
                    gate.didBecomeActive()
                },
            ]
            gate.install(BackgroundTaskAssertions(application: application), lifecycle: coverage.lifecycle)
        } else {
            observers = []
            gate.install(ExpiringActivityAssertions(), lifecycle: coverage.lifecycle)
        }
        #else
        observers = []
        gate.install(ExpiringActivityAssertions(), lifecycle: .unknown)
        #endif
    }
}
#endif
