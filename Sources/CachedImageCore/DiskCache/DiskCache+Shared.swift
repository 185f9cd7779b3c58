import Foundation

extension DiskCache {
    /// Live caches by standardised directory path.
    private static let registry = Locked<[String: WeakDiskCache]>([:])

    private struct WeakDiskCache {
        weak var cache: DiskCache?
    }

    /// The process's cache for `directory`: the one already open there, or a new one.
    ///
    /// Every ``ImagePipeline`` opens its disk cache this way, so two pipelines with the same
    /// directory (`.shared` and a custom one, say) share one index, one size limit and one
    /// write queue instead of evicting and deleting each other's files. The first opener's
    /// `sizeLimit` and `clock` apply; every caller's `errorHandler` is called.
    ///
    /// ```swift
    /// let cache = try DiskCache.shared(directory: cachesURL.appendingPathComponent("Images"))
    /// ```
    ///
    /// - Throws: ``DiskCache/Error`` when the directory cannot be created, or another process
    ///   holds it.
    public static func shared(
        directory: URL,
        sizeLimit: Int = DiskCache.defaultSizeLimit,
        clock: any CacheClock = SystemClock(),
        errorHandler: (@Sendable (DiskCache.Error) -> Void)? = nil
    ) throws -> DiskCache {
        let path = directory.standardizedFileURL.resolvingSymlinksInPath().path
        return try registry.withLock { registry in
            if let cache = registry[path]?.cache {
                if let errorHandler { cache.addErrorHandler(errorHandler) }
                return cache
            }
            let cache = try DiskCache(directory: directory, sizeLimit: sizeLimit, clock: clock, errorHandler: errorHandler)
            registry = registry.filter { $0.value.cache != nil }
            registry[path] = WeakDiskCache(cache: cache)
            return cache
        }
    }
}
