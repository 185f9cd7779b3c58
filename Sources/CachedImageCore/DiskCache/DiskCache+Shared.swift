#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
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
        let path = canonicalPath(of: directory)
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

    /// The directory's path with symbolic links resolved, so two spellings of one directory
    /// share a cache. `realpath` costs a few µs where `URL.resolvingSymlinksInPath()` costs about
    /// 15 µs on Linux, on every pipeline's creation. A directory that does not exist yet is
    /// created first (opening the cache would create it anyway).
    private static func canonicalPath(of directory: URL) -> String {
        let path = directory.standardizedFileURL.path
        if let resolved = realPath(path) { return resolved }
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return realPath(path) ?? path
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
