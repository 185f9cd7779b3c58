#if canImport(UIKit) && !os(watchOS)
import CachedImageCore
import Foundation
@preconcurrency import UIKit

/// Trims a pipeline's memory cache when the system needs memory: empties it on
/// `UIApplication.didReceiveMemoryWarningNotification`, and trims it to a fraction of its cost
/// limit when the app enters the background (so the app is less likely to be terminated there).
///
/// `CachedAsyncImage` installs one for every pipeline it uses; install it yourself for a
/// pipeline used without views:
///
/// ```swift
/// MemoryPressureTrimmer.install(for: pipeline)
/// ```
@MainActor
public final class MemoryPressureTrimmer {
    /// The share of the memory cache's cost limit kept in the background. Default: 25%.
    public static let defaultBackgroundFraction = 0.25

    private static var installed: [ObjectIdentifier: MemoryPressureTrimmer] = [:]

    /// The pipeline whose memory cache is trimmed.
    public private(set) weak var pipeline: ImagePipeline?
    /// The share of the cost limit kept when the app enters the background.
    public let backgroundFraction: Double
    private var observers: [any NSObjectProtocol] = []

    /// Starts trimming `pipeline`'s memory cache under memory pressure; installing twice for the
    /// same pipeline returns the existing trimmer.
    @discardableResult
    public static func install(
        for pipeline: ImagePipeline,
        backgroundFraction: Double = defaultBackgroundFraction
    ) -> MemoryPressureTrimmer {
        let id = ObjectIdentifier(pipeline)
        if let existing = installed[id] {
            if existing.pipeline === pipeline { return existing }
            existing.stop()  // a new pipeline at a dead one's address
        }
        let trimmer = MemoryPressureTrimmer(pipeline: pipeline, backgroundFraction: backgroundFraction)
        installed[id] = trimmer
        return trimmer
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
            center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil) { [weak pipeline] _ in
                guard let cache = pipeline?.memoryCache else { return }
                cache.trim(toCost: Int(Double(cache.costLimit) * fraction))
            },
        ]
    }

    /// Stops observing; the memory cache is no longer trimmed.
    public func stop() {
        for observer in observers {
            NotificationCenter.default.removeObserver(observer)
        }
        observers = []
        if let pipeline, MemoryPressureTrimmer.installed[ObjectIdentifier(pipeline)] === self {
            MemoryPressureTrimmer.installed[ObjectIdentifier(pipeline)] = nil
        }
    }
}
#endif
