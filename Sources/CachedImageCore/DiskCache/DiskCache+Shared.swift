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
    /// - Throws: ``DiskCache/Error`` when the directory cannot be created or opened. Another
    ///   process using the directory does not keep this one out (see <doc:SharingACacheBetweenProcesses>).
    public static func shared(
        directory: URL,
        sizeLimit: Int = DiskCache.defaultSizeLimit,
        clock: any CacheClock = SystemClock(),
        errorHandler: (@Sendable (DiskCache.Error) -> Void)? = nil
    ) throws -> DiskCache {
        let (directory, path) = standardizedLocation(directory)
        let opened = openDirectory(path)
        return try registry.withLock { registry in
            if let cache = registry[opened.key]?.cache {
                if let descriptor = opened.descriptor { close(descriptor) }
                if let errorHandler { cache.addErrorHandler(errorHandler) }
                return cache
            }
            let cache = try DiskCache(
                directory: directory, path: path, descriptor: opened.descriptor, sizeLimit: sizeLimit, clock: clock,
                errorHandler: errorHandler, nameForKey: { KeyHasher.name(for: $0) }
            )
            if registry.values.contains(where: { $0.cache == nil }) {
                registry = registry.filter { $0.value.cache != nil }
            }
            registry[opened.key] = WeakDiskCache(cache: cache)
            return cache
        }
    }

    /// What identifies a directory however it is spelled (symbolic links, `..`).
    private enum DirectoryKey: Hashable {
        /// Its device and inode.
        case identity(device: UInt64, inode: UInt64)
        /// Its path, when it cannot be opened (opening the cache then throws why).
        case path(String)
    }

    /// Opens the directory (creating it first if it does not exist yet: opening the cache would
    /// create it anyway) and reads its identity from the open descriptor, which then becomes the
    /// directory lock's: one `open` and one `fstat`, where resolving the path costs several system
    /// calls and a separate `stat` walks the path again.
    private static func openDirectory(_ path: String) -> (key: DirectoryKey, descriptor: Int32?) {
        var descriptor = DiskCacheFileIO.openDirectory(atPath: path)
        if descriptor < 0, errno == ENOENT {
            try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            descriptor = DiskCacheFileIO.openDirectory(atPath: path)
        }
        guard descriptor >= 0 else { return (.path(path), nil) }
        guard let stamp = DiskCacheFileIO.directoryStamp(of: descriptor) else {
            close(descriptor)
            return (.path(path), nil)
        }
        return (.identity(device: stamp.device, inode: stamp.inode), descriptor)
    }
}
