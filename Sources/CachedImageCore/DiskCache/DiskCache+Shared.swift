import Foundation

extension DiskCache {
    /// Live caches by directory identity (device and inode).
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
        let directory = standardized(directory)
        let path = canonicalPath(of: directory)
        return try registry.withLock { registry in
            if let cache = registry[path]?.cache {
                if let errorHandler { cache.addErrorHandler(errorHandler) }
                return cache
            }
            let cache = try DiskCache(
                directory: directory, sizeLimit: sizeLimit, clock: clock, errorHandler: errorHandler,
                nameForKey: { KeyHasher.name(for: $0) }
            )
            registry = registry.filter { $0.value.cache != nil }
            registry[path] = WeakDiskCache(cache: cache)
            return cache
        }
    }

    /// What identifies the directory however it is spelled (symbolic links, `..`): its device
    /// and inode, from one `stat` (resolving the path costs several system calls). A directory
    /// that does not exist yet is created first (opening the cache would create it anyway).
    private static func canonicalPath(of directory: URL) -> String {
        let path = directory.path
        if let identity = identity(of: path) { return identity }
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return identity(of: path) ?? path
    }

    private static func identity(of path: String) -> String? {
        DiskCacheFileIO.directoryStamp(atPath: path).map { "\($0.device):\($0.inode)" }
    }
}
