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
    /// A refused lock is tried again for about 130 ms before giving up. The holder may be this
    /// process's own earlier descriptor, still open in a child that was forked (by
    /// `posix_spawn`, `Process`, `fork`) while it was and has not reached `exec` yet; that child
    /// releases it within a moment. So a cache reopened while the app spawns a process opens;
    /// a directory that another process really holds fails a little later than it would.
    ///
    /// - Parameter descriptor: The directory, already open (``DiskCache/shared(directory:sizeLimit:clock:errorHandler:)``
    ///   opens it to learn its identity); the lock takes it over and closes it when done.
    init(directoryPath: String, descriptor: Int32? = nil) throws {
        let path = directoryPath
        self.path = path
        var descriptor = descriptor
        var retryDelay: useconds_t = 250
        while true {
            let attempt = try Self.held.withLock { held in
                try Self.acquire(path, descriptor: &descriptor, held: &held)
            }
            guard case .refused(let errorNumber) = attempt else { return }
            guard retryDelay <= Self.maximumRetryDelay else {
                if let descriptor { close(descriptor) }
                throw DiskCache.Error(operation: .open, key: nil, path: path, underlying: DiskCacheDirectoryLock.Busy(errorNumber: errorNumber))
            }
            usleep(retryDelay)
            retryDelay *= 2
        }
    }

    /// The longest pause between two attempts; the pauses double from 0.25 ms up to it.
    private static let maximumRetryDelay: useconds_t = 64_000

    private enum Attempt {
        /// This process holds the directory now: another instance did, or the `flock` succeeded.
        case acquired
        /// The `flock` was refused with this `errno`; the directory stays open for the next attempt.
        case refused(Int32)
    }

    /// One attempt, under the table's lock.
    private static func acquire(
        _ path: String,
        descriptor: inout Int32?,
        held: inout [String: (descriptor: Int32, holders: Int)]
    ) throws -> Attempt {
        if let current = held[path] {
            if let open = descriptor {
                close(open)
                descriptor = nil
            } else if DiskCacheFileIO.directoryStamp(atPath: path) == nil {
                // Another instance in this process holds it: the directory must still be there.
                throw DiskCache.Error(operation: .open, key: nil, path: path, underlying: POSIXError(.ENOENT))
            }
            held[path] = (current.descriptor, current.holders + 1)
            return .acquired
        }
        let open = descriptor ?? DiskCacheFileIO.openDirectory(atPath: path)
        guard open >= 0 else {
            throw DiskCache.Error(operation: .open, key: nil, path: path, underlying: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
        }
        descriptor = open
        guard flock(open, LOCK_EX | LOCK_NB) == 0 else { return .refused(errno) }
        held[path] = (open, 1)
        descriptor = nil
        return .acquired
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
