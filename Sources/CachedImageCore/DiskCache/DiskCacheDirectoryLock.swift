#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// The advisory lock that keeps a second process (an app extension sharing the directory) from
/// running its own `DiskCache` on a directory, where it would delete the first one's temporary
/// files and break its size accounting. `flock` on the directory itself: released by the kernel
/// when the process ends, however it ends. Within one process, instances of the same directory
/// share the lock (the registry normally hands out one instance anyway).
final class DiskCacheDirectoryLock: Sendable {
    /// Lock files held by this process: path → (descriptor, holders).
    private static let held = Locked<[String: (descriptor: Int32, holders: Int)]>([:])

    private let path: String

    /// Takes the lock for `directoryPath`, or throws a ``DiskCache/Error`` (`.open`) when
    /// another process holds it.
    ///
    /// - Parameter descriptor: The directory, already open (``DiskCache/shared(directory:sizeLimit:clock:errorHandler:)``
    ///   opens it to learn its identity); the lock takes it over and closes it when done.
    init(directoryPath: String, descriptor: Int32? = nil) throws {
        let path = directoryPath
        self.path = path
        try Self.held.withLock { held in
            if let current = held[path] {
                if let descriptor {
                    close(descriptor)
                } else if DiskCacheFileIO.directoryStamp(atPath: path) == nil {
                    // Another instance in this process holds it: the directory must still be there.
                    throw DiskCache.Error(operation: .open, key: nil, path: path, underlying: POSIXError(.ENOENT))
                }
                held[path] = (current.descriptor, current.holders + 1)
                return
            }
            let descriptor = descriptor ?? DiskCacheFileIO.openDirectory(atPath: path)
            guard descriptor >= 0 else {
                throw DiskCache.Error(operation: .open, key: nil, path: path, underlying: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let code = errno
                close(descriptor)
                throw DiskCache.Error(operation: .open, key: nil, path: path, underlying: DiskCacheDirectoryLock.Busy(errorNumber: code))
            }
            held[path] = (descriptor, 1)
        }
    }

    deinit {
        Self.held.withLock { held in
            guard let current = held[path] else { return }
            if current.holders > 1 {
                held[path] = (current.descriptor, current.holders - 1)
            } else {
                close(current.descriptor) // releases the lock
                held[path] = nil
            }
        }
    }

    /// Another process holds the directory.
    struct Busy: Swift.Error, CustomStringConvertible {
        /// The `errno` of the refused `flock` (`EWOULDBLOCK`). A plain number: the iOS 16.5
        /// SDK's `POSIXErrorCode` is not `Sendable`.
        var errorNumber: Int32
        var description: String { "the cache directory is in use by another process" }
    }
}
