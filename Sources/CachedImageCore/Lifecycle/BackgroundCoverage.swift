import Foundation

/// Which background assertion covers the disk cache's locked operations in each kind of
/// process, and when core installs one by itself: the decisions, made here and tested on every
/// platform; the platform code only supplies the assertions (`ExpiringActivityAssertions` in
/// core, `beginBackgroundTask` in the `CachedImage` layer).
///
/// | Process | Who installs | Assertion | Lifecycle |
/// |---|---|---|---|
/// | App, no view of the `CachedImage` module ran (or only `CachedImageCore` linked) | the disk cache, on opening a shared directory | `performExpiringActivity` | unknown: every locked operation inside one |
/// | App, once a view or `AppLifecycleObserver` ran | the `CachedImage` layer | `beginBackgroundTask` | UIKit's: none needed in the foreground |
/// | Widget, app extension, watchOS app | the disk cache (and the `CachedImage` layer, the same) | `performExpiringActivity` | unknown: every locked operation inside one |
/// | macOS, Linux | nobody | none | active |
package enum BackgroundCoverage {
    /// The kinds of process the table tells apart.
    package enum Process: Sendable, Equatable {
        /// An app (its own bundle, `UIApplication` running it).
        case app
        /// An app extension (a widget, a share or notification extension), or a watchOS app:
        /// never told when it is suspended, no `UIApplication`.
        case appExtension
    }

    /// The assertions a process can have.
    package enum Assertion: Sendable, Equatable {
        /// `UIApplication.beginBackgroundTask`: an app's, tied to its lifecycle.
        case backgroundTask
        /// `ProcessInfo.performExpiringActivity`: any process's.
        case expiringActivity
    }

    /// What the platform layer installs for `process`: the assertion and the lifecycle the gate
    /// starts from (`applicationState`: an app's state now, `nil` when it cannot be read).
    package static func platformCoverage(
        for process: Process,
        applicationState: BackgroundExecutionState.Lifecycle?
    ) -> (assertion: Assertion, lifecycle: BackgroundExecutionState.Lifecycle) {
        switch process {
        case .app: return (.backgroundTask, applicationState ?? .unknown)
        case .appExtension: return (.expiringActivity, .unknown)
        }
    }

    /// The process kind from its main bundle's location: an app extension's bundle is an
    /// `.appex`.
    package static func process(mainBundleURL: URL) -> Process {
        mainBundleURL.pathExtension == "appex" ? .appExtension : .app
    }

    /// Whether `path` lies in a directory other processes share: an App Group container
    /// (`…/Containers/Shared/AppGroup/<UUID>/…` on iOS, tvOS, watchOS and visionOS, devices and
    /// simulators alike). Only there does a lock held across suspension get the process killed,
    /// and only there does the disk cache install assertions by itself.
    package static func isSharedContainer(_ path: String) -> Bool {
        path.contains("/Containers/Shared/AppGroup/")
    }

    /// The default provider ``BackgroundExecutionGate/coverSharedDirectory()`` installs:
    /// `performExpiringActivity` where the system suspends processes (iOS, tvOS, watchOS,
    /// visionOS), nothing elsewhere.
    @Sendable
    package static func defaultProvider() -> (any BackgroundAssertionProviding)? {
        #if canImport(Darwin) && !os(macOS)
        return ExpiringActivityAssertions()
        #else
        return nil
        #endif
    }
}
