import Foundation

/// Which background assertion covers the disk cache's locked operations in each kind of
/// process, and when core installs one by itself: the decisions, made here and tested on every
/// platform; the platform code only supplies the assertions and the lifecycle.
///
/// Every process's assertion is `ProcessInfo.performExpiringActivity` (core's
/// `ExpiringActivityAssertions`: Foundation, callable from the disk cache's queue; apps have it
/// since iOS 8.2). `UIApplication.beginBackgroundTask` is not used: the SDK makes it the main
/// actor's, and the disk cache asks from its queue (the main thread may be waiting for it in a
/// `flush()`).
///
/// | Process | Who installs | Lifecycle |
/// |---|---|---|
/// | App, no view of the `CachedImage` module ran (or only `CachedImageCore` linked) | the disk cache, on opening a shared directory | unknown: every locked operation inside an assertion |
/// | App, once a view or `AppLifecycleObserver` ran | the `CachedImage` layer | UIKit's notifications: an assertion only in the background |
/// | Widget, app extension, watchOS app | the disk cache (and the `CachedImage` layer, the same) | unknown: every locked operation inside an assertion |
/// | macOS, Linux | nobody (no assertion) | active |
package enum BackgroundCoverage {
    /// The lifecycle the gate starts from when the platform layer installs its provider
    /// (`applicationState`: an app's state now, `nil` when it cannot be read): an app's own,
    /// which UIKit's notifications then keep up to date; unknown for an extension.
    package static func lifecycle(
        for process: ProcessKind,
        applicationState: BackgroundExecutionState.Lifecycle?
    ) -> BackgroundExecutionState.Lifecycle {
        switch process {
        case .app: return applicationState ?? .unknown
        case .appExtension: return .unknown
        }
    }

    /// Whether `path` lies in a directory other processes share: an App Group container
    /// (`…/Containers/Shared/AppGroup/<UUID>/…` on iOS, tvOS, watchOS and visionOS, devices and
    /// simulators alike). Only there does a lock held across suspension get the process killed,
    /// and only there does the disk cache install assertions by itself.
    package static func isSharedContainer(_ path: String) -> Bool {
        // A byte scan: every disk cache opening (a relaunch's first image) asks, and the string
        // algorithms' `contains` costs thousands of instructions more.
        var path = path
        return path.withUTF8 { bytes in
            let needle = sharedContainerMarker
            guard bytes.count >= needle.count else { return false }
            for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
                var index = 1
                while index < needle.count, bytes[start + index] == needle[index] { index += 1 }
                if index == needle.count { return true }
            }
            return false
        }
    }

    private static let sharedContainerMarker = Array("/Containers/Shared/AppGroup/".utf8)

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
