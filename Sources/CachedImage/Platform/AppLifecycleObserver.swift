#if canImport(UIKit) && !os(watchOS)
import CachedImageCore
import Foundation
@preconcurrency import UIKit

/// Looks after a pipeline's caches as the app comes and goes.
///
/// - On `UIApplication.didReceiveMemoryWarningNotification` it empties the memory cache.
/// - On `UIApplication.willEnterForegroundNotification` it tells ``FailureRecovery/shared``, so
///   images on screen that failed for a passing reason are asked again.
/// - On `UIApplication.didEnterBackgroundNotification` it trims the memory cache to a fraction of
///   its cost limit, so the app is less likely to be terminated in the background. It also
///   flushes the disk cache: writes still staged reach their files, and the index snapshot is
///   written. The next launch then opens the cache from that snapshot instead of listing its
///   directory, and keeps the order in which images were last used. The flush runs off the main
///   thread, as an expiring activity (`ProcessInfo.performExpiringActivity`, which app
///   extensions may use too) that the system lets finish before it suspends the app. An
///   interrupted flush loses nothing: every file it writes lands by an atomic rename.
/// - It installs ``MemoryPressureTrimmer`` for the pipeline (the system's memory-pressure
///   source, which also fires where no memory warning is posted).
/// - It connects the disk cache to the app's lifecycle, once per process
///   (`BackgroundExecutionObserver`): every operation that takes the cache directory's lock runs
///   inside a background assertion when the app is in the background (always in an app
///   extension), and waits in memory while none can be had, so the process is never suspended
///   holding a lock in a shared container.
///
/// `CachedAsyncImage`, `CachedAnimatedImage`, `CachedAnimatedImageView` and
/// `CachedImageViewLoader` install one for every pipeline they use. Install it yourself for a
/// pipeline used without them:
///
/// ```swift
/// AppLifecycleObserver.install(for: pipeline)
/// ```
@MainActor
package final class AppLifecycleObserver {
    /// The share of the memory cache's cost limit kept in the background. Default: 25%.
    package static let defaultBackgroundFraction = 0.25

    private static var installed: [ObjectIdentifier: AppLifecycleObserver] = [:]

    /// The pipeline whose caches are looked after.
    package private(set) weak var pipeline: ImagePipeline?
    /// The share of the memory cache's cost limit kept when the app enters the background.
    package let backgroundFraction: Double
    private var observers: [any NSObjectProtocol] = []

    /// Starts looking after `pipeline`'s caches; installing twice for the same pipeline returns
    /// the existing observer.
    @discardableResult
    package static func install(
        for pipeline: ImagePipeline,
        backgroundFraction: Double = defaultBackgroundFraction
    ) -> AppLifecycleObserver {
        BackgroundExecutionObserver.installOnce()
        MemoryPressureTrimmer.install(for: pipeline)
        let id = ObjectIdentifier(pipeline)
        if let existing = installed[id], existing.pipeline === pipeline { return existing }
        // Observers whose pipeline is gone (one may sit at this pipeline's address): stop them
        // and forget them, so an app that makes pipelines as it goes does not collect them.
        for (deadID, observer) in installed where observer.pipeline == nil {
            observer.stop()
            installed[deadID] = nil
        }
        let observer = AppLifecycleObserver(pipeline: pipeline, backgroundFraction: backgroundFraction)
        installed[id] = observer
        return observer
    }

    private init(pipeline: ImagePipeline, backgroundFraction: Double) {
        self.pipeline = pipeline
        self.backgroundFraction = min(1, max(0, backgroundFraction))
        let fraction = self.backgroundFraction
        let center = NotificationCenter.default
        observers = [
            center.addObserver(forName: UIApplication.didReceiveMemoryWarningNotification, object: nil, queue: nil) { [weak pipeline] _ in
                pipeline?.memoryCache?.trim(toCost: 0)
            },
            center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil) { _ in
                // Transient failures on screen are asked again (FailureRecovery's one rule).
                Task { @MainActor in FailureRecovery.shared.appDidEnterForeground() }
            },
            center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil) { [weak pipeline] _ in
                guard let pipeline else { return }
                if let cache = pipeline.memoryCache {
                    cache.trim(toCost: Int(Double(cache.costLimit) * fraction))
                }
                if let diskCache = pipeline.diskCache {
                    Self.flushBeforeSuspension(diskCache)
                }
            },
        ]
    }

    /// Stops observing; the caches are no longer trimmed or flushed.
    package func stop() {
        for observer in observers {
            NotificationCenter.default.removeObserver(observer)
        }
        observers = []
        if let pipeline, AppLifecycleObserver.installed[ObjectIdentifier(pipeline)] === self {
            AppLifecycleObserver.installed[ObjectIdentifier(pipeline)] = nil
        }
    }

    /// Flushes `diskCache` on a background thread that the system keeps running until the flush
    /// returns, or until it must suspend the app. Then this activity's expiry returns at once
    /// (the block called with `expired == true` does nothing), and the disk cache's own
    /// assertions expire too: the locked operation in flight loses its lock and commits nothing
    /// more, the operations after it are refused and stay queued in memory, and the flush returns
    /// once the queue has drained. What was not renamed into place is not on disk: it lands when
    /// the app runs again, or is lost if the app is terminated first (never wrong bytes).
    private nonisolated static func flushBeforeSuspension(_ diskCache: DiskCache) {
        ProcessInfo.processInfo.performExpiringActivity(
            withReason: "CachedImage: writing the disk cache's index"
        ) { expired in
            guard !expired else { return }
            diskCache.flush()
        }
    }
}
#endif
