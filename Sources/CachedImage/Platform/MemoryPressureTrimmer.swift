#if canImport(Darwin)
import CachedImageCore
import Dispatch
import Foundation

/// Trims pipelines' memory caches when the system reports memory pressure, from one
/// `DispatchSource.makeMemoryPressureSource` for the process: on every Apple platform,
/// including macOS, watchOS and visionOS, which have no UIKit memory warning. How much goes is
/// `MemoryPressureResponse` (in core): a quarter of the limit stays on a warning, nothing on
/// a critical level.
///
/// `AppLifecycleObserver.install(for:)` (UIKit platforms) and `CachedAsyncImage` elsewhere
/// install it; install it yourself for a pipeline used without them:
///
/// ```swift
/// MemoryPressureTrimmer.install(for: pipeline)
/// ```
package enum MemoryPressureTrimmer {
    private struct WeakPipeline: @unchecked Sendable {
        weak var pipeline: ImagePipeline?
    }

    private struct State: @unchecked Sendable {
        var source: (any DispatchSourceMemoryPressure)?
        var pipelines: [WeakPipeline] = []
    }

    private static let state = NSLock()
    nonisolated(unsafe) private static var storage = State()

    /// Starts trimming `pipeline`'s memory cache under memory pressure (once per pipeline; the
    /// pipeline is held weakly).
    package static func install(for pipeline: ImagePipeline) {
        state.lock()
        defer { state.unlock() }
        storage.pipelines.removeAll { $0.pipeline == nil }
        guard !storage.pipelines.contains(where: { $0.pipeline === pipeline }) else { return }
        storage.pipelines.append(WeakPipeline(pipeline: pipeline))
        guard storage.source == nil else { return }
        let source = DispatchSource.makeMemoryPressureSource(eventMask: [.warning, .critical], queue: .global(qos: .utility))
        source.setEventHandler { [weak source] in
            guard let event = source?.data else { return }
            trim(event.contains(.critical) ? .critical : event.contains(.warning) ? .warning : .normal)
        }
        source.resume()
        storage.source = source
    }

    private static func trim(_ level: MemoryPressureResponse.Level) {
        state.lock()
        let pipelines = storage.pipelines.compactMap(\.pipeline)
        state.unlock()
        for pipeline in pipelines {
            pipeline.trimResumableDownloads(for: level)
            guard let cache = pipeline.memoryCache,
                  let target = MemoryPressureResponse.trimTarget(for: level, costLimit: cache.costLimit)
            else { continue }
            cache.trim(toCost: target)
        }
    }
}
#endif
