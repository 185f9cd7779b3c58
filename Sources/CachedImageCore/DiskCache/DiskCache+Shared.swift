#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

extension DiskCache {
    /// Live caches by directory identity (device and inode).
    private static let registry = Locked<[DirectoryKey: WeakDiskCache]>([:])

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
    /// - Throws: ``DiskCache/Error`` when the directory cannot be created or found. Another
    ///   process using the directory does not keep this one out (see <doc:SharingACacheBetweenProcesses>).
    package static func shared(
        directory: URL,
        sizeLimit: Int = DiskCache.defaultSizeLimit,
        clock: any CacheClock = SystemClock(),
        errorHandler: (@Sendable (DiskCache.Error) -> Void)? = nil
    ) throws -> DiskCache {
        try shared(directory: directory, sizeLimit: sizeLimit, clock: clock, errorHandler: errorHandler, backgroundGate: .shared)
    }

    /// `shared(directory:sizeLimit:clock:errorHandler:)` with the ``BackgroundExecutionGate``
    /// a new cache uses (tests give a pipeline its own).
    package static func shared(
        directory: URL,
        sizeLimit: Int,
        clock: any CacheClock,
        errorHandler: (@Sendable (DiskCache.Error) -> Void)?,
        backgroundGate: BackgroundExecutionGate
    ) throws -> DiskCache {
        let (directory, path) = standardizedLocation(directory)
        let key = identify(path)
        return try registry.withLock { registry in
            // Nothing holds the directory open, so its inode number can belong to another
            // directory by now (the first was deleted, or renamed): the cache is this
            // directory's only when its own path still leads to it. And a cache whose directory
            // was replaced (deleted, or renamed aside, and made again) is still the one for
            // its path: its operations go to the directory there.
            let found = registry[key]?.cache.flatMap { cache in
                cache.directoryPath == path || identify(cache.directoryPath, creating: false) == key ? cache : nil
            } ?? registry.values.lazy.compactMap(\.cache).first { $0.directoryPath == path }
            if let cache = found {
                if let errorHandler { cache.addErrorHandler(errorHandler) }
                registry[key] = WeakDiskCache(cache: cache)
                return cache
            }
            let cache = try DiskCache(
                directory: directory, path: path, isKnownDirectory: key.isIdentity, sizeLimit: sizeLimit, clock: clock,
                errorHandler: errorHandler, nameForKey: { KeyHasher.name(for: $0) }, backgroundGate: backgroundGate
            )
            // Forgets the caches gone since, in place.
            for gone in registry.compactMap({ $0.value.cache == nil ? $0.key : nil }) {
                registry[gone] = nil
            }
            registry[key] = WeakDiskCache(cache: cache)
            return cache
        }
    }

    /// What identifies a directory however it is spelled (symbolic links, `..`).
    private enum DirectoryKey: Hashable {
        /// Its device and inode.
        case identity(device: UInt64, inode: UInt64)
        /// Its path, when it cannot be found (opening the cache then throws why).
        case path(String)

        var isIdentity: Bool {
            if case .identity = self { return true }
            return false
        }
    }

    /// The directory's identity, from one `stat` (creating it first if it does not exist yet:
    /// opening the cache would create it anyway). Nothing is opened: the directory lock opens
    /// the directory for the first file operation, which a relaunch's first reads never run.
    private static func identify(_ path: String, creating: Bool = true) -> DirectoryKey {
        var stamp = DiskCacheFileIO.directoryStamp(atPath: path)
        if stamp == nil, creating, errno == ENOENT {
            try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            stamp = DiskCacheFileIO.directoryStamp(atPath: path)
        }
        guard let stamp else { return .path(path) }
        return .identity(device: stamp.device, inode: stamp.inode)
    }
}
