import Foundation

/// Asks again for images that failed for a passing reason, at the moments a user expects an
/// app to try again: the app returns to the foreground, or the network comes back.
///
/// One rule, applied by every ``ImageLoader`` (and so by `CachedAsyncImage`,
/// `CachedImageViewLoader` and the UIKit one-liner):
/// - Only a **transient** failure is asked again (``ImagePipeline/Error/isTransient``: a dropped
///   connection, a timeout, a `5xx`); a `404` or an undecodable body stays a failure (and a
///   failure the pipeline remembers answers again without a request).
/// - A transient failure becomes **stale** when the app returns to the foreground, when the
///   network comes back, or when its view stays off screen past its grace period
///   (``OffscreenBehavior``). A stale failure is asked again as soon as its view is
///   on screen: at once for a view on screen, on its next appearance otherwise.
/// - Nothing else asks again: branch swaps and quick re-appearances never do, and a failure
///   that comes back from the request it caused waits for the next such moment (no loop).
///
/// `CachedImage` reports the foreground to ``shared``, which follows ``NetworkMonitor/shared``
/// for connectivity. Report your own events to it, or give a loader a recovery of its own.
@MainActor
package final class FailureRecovery {
    /// The recovery every loader uses unless given another.
    package static let shared: FailureRecovery = {
        let recovery = FailureRecovery()
        recovery.follow(.shared)
        return recovery
    }()

    private struct Entry {
        weak var loader: ImageLoader?
    }

    /// Loaders showing a transient failure.
    private var failed: [ObjectIdentifier: Entry] = [:]
    private var followed: [NetworkMonitor] = []

    /// A recovery of its own, for loaders that should not follow ``shared``.
    package init() {}

    /// The app returned to the foreground: every transient failure becomes stale.
    package func appDidEnterForeground() {
        makeFailuresStale()
    }

    /// The network is reachable again after it was not: every transient failure becomes stale.
    package func networkDidBecomeAvailable() {
        makeFailuresStale()
    }

    /// Calls ``networkDidBecomeAvailable()`` whenever `monitor` reports the network reachable
    /// after it was not. Following the same monitor twice does nothing.
    package func follow(_ monitor: NetworkMonitor) {
        guard !followed.contains(where: { $0 === monitor }) else { return }
        followed.append(monitor)
        monitor.onReachabilityRestored { [weak self] in
            Task { @MainActor in self?.networkDidBecomeAvailable() }
        }
    }

    /// Whether every monitor this recovery follows reports the network reachable: a stale image
    /// on screen is not revalidated while it is not (the failure is reported at once, and the
    /// network's return asks again). `true` when it follows none (nothing reports conditions).
    var isNetworkReachable: Bool {
        followed.allSatisfy { $0.conditions.isReachable }
    }

    /// The number of loaders waiting for a reason to ask again (for tests).
    var waitingCount: Int {
        failed = failed.filter { $0.value.loader != nil }
        return failed.count
    }

    func register(_ loader: ImageLoader) {
        failed[ObjectIdentifier(loader)] = Entry(loader: loader)
    }

    func unregister(_ loader: ImageLoader) {
        failed[ObjectIdentifier(loader)] = nil
    }

    private func makeFailuresStale() {
        let loaders = failed.values.compactMap(\.loader)
        failed = [:]
        for loader in loaders { loader.failureBecameStale() }
    }

    /// Whether `error` is worth asking again once things change.
    nonisolated static func isTransient(_ error: any Error) -> Bool {
        (error as? ImagePipeline.Error)?.isTransient ?? false
    }
}
