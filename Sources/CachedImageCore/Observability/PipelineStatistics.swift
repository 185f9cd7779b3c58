/// Counters for everything a pipeline did since it was created (or last reset).
/// Read a consistent snapshot with ``ImagePipeline/statistics``.
///
/// ```swift
/// let stats = pipeline.statistics
/// print("memory hit ratio:", stats.memoryHitRatio, "network:", stats.networkRequests)
/// ```
package struct PipelineStatistics: Sendable, Hashable, Codable {
    /// Image lookups answered by the memory cache.
    package var memoryHits = 0
    /// Image lookups the memory cache could not answer.
    package var memoryMisses = 0
    /// Data lookups answered by the disk cache (fresh, allowed stale, or revalidated).
    package var diskHits = 0
    /// Data lookups the disk cache could not answer.
    package var diskMisses = 0
    /// Requests sent to the network (full and conditional).
    package var networkRequests = 0
    /// Of those, conditional requests revalidating a stale entry.
    package var revalidations = 0
    /// Revalidations the server answered with `304 Not Modified`.
    package var notModifiedResponses = 0
    /// Body bytes received from the network.
    package var bytesDownloaded = 0
    /// Requests that joined a download or decode already in flight instead of starting one.
    package var coalescedRequests = 0
    /// Stale entries served because revalidation failed (offline, 5xx) and the entry allowed it,
    /// or while a background revalidation ran (`stale-while-revalidate`).
    package var staleResponsesServed = 0
    /// Requests that failed with an error.
    package var failures = 0
    /// Requests cancelled by their caller.
    package var cancellations = 0
    /// Disk cache operations that failed: the cache could not open (the pipeline then runs
    /// without one), or a write or removal failed (disk full, permissions). Each is also an
    /// ``ImagePipeline/Event/diskCacheFailed(_:)`` event.
    package var diskCacheFailures = 0

    /// Statistics with every count at zero.
    package init() {}

    /// Memory hits over memory lookups, 0 when there were none.
    package var memoryHitRatio: Double {
        Self.ratio(memoryHits, memoryHits + memoryMisses)
    }

    /// Disk hits over disk lookups, 0 when there were none.
    package var diskHitRatio: Double {
        Self.ratio(diskHits, diskHits + diskMisses)
    }

    private static func ratio(_ part: Int, _ whole: Int) -> Double {
        whole == 0 ? 0 : Double(part) / Double(whole)
    }
}
