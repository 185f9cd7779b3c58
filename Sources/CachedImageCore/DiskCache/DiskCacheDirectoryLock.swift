#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// Short-lived exclusive access to a cache directory that several processes may share (an app
/// and its extensions in an App Group container), and the directory's change count.
///
/// The lock is an advisory `flock` on the directory, taken only around the cache's file
/// operations on its queue (a write and its evictions, a removal, loading the index, writing the
/// snapshot) and released at once: it is never held while the process idles, so a process
/// suspended between two operations holds no lock (a lock held in a shared container across
/// suspension is what iOS terminates an app for, `0xdead10cc`). The directory stays open for the
/// cache's life, without a lock. `flock` belongs to the open file description: a child that was
/// forked while the directory was open and locked does not keep the lock once this process
/// unlocks it.
///
/// The change count (``readChangeCount()`` / ``writeChangeCount(_:)``, a 16-byte file in the
/// snapshot's subdirectory) is raised, under the lock, before every change a cache makes to the
/// directory. A cache that finds it different from the value it last wrote knows that another
/// process changed the directory since, and brings its index up to date; a snapshot records it
/// and is trusted only while it is unchanged.
final class DiskCacheDirectoryLock: Sendable {
    /// The directory, open for the cache's life (no lock held between operations).
    private let descriptor: Int32
    private let changeCountPath: String
    /// Whether the last attempt gave up: the next ones try once instead of waiting again.
    private let lastAttemptTimedOut = Locked(false)

    /// How long an operation waits for a peer that holds the lock before going ahead without it.
    static let waitLimit: TimeInterval = 1

    /// Opens `directoryPath`, or throws a ``DiskCache/Error`` (`.open`) with the `errno` (for
    /// example `ENOENT` when it does not exist yet).
    ///
    /// - Parameter descriptor: The directory, already open (``DiskCache/shared(directory:sizeLimit:clock:errorHandler:)``
    ///   opens it to learn its identity); taken over and closed when the lock is released.
    init(directoryPath: String, changeCountPath: String, descriptor: Int32? = nil) throws {
        let open = descriptor ?? DiskCacheFileIO.openDirectory(atPath: directoryPath)
        guard open >= 0 else {
            throw DiskCache.Error(
                operation: .open, key: nil, path: directoryPath, underlying: DiskCacheFileIO.posixError()
            )
        }
        self.descriptor = open
        self.changeCountPath = changeCountPath
    }

    deinit {
        close(descriptor)
        changeCountFile.withLock { if $0 >= 0 { close($0) } }
    }

    /// Runs `body` holding the directory's lock, then releases it. `body` receives `false` when
    /// another process kept the lock for longer than ``waitLimit`` (a process stopped while it
    /// held it): it then runs without the lock, and must not do what needs it (deleting
    /// temporary files that may be another process's).
    func withExclusiveAccess<T>(_ body: (_ isExclusive: Bool) throws -> T) rethrows -> T {
        let isExclusive = acquire()
        defer { if isExclusive { flock(descriptor, LOCK_UN) } }
        return try body(isExclusive)
    }

    /// Takes the lock, polling with growing pauses (a blocking `flock` could wait forever behind
    /// a stopped process), for at most ``waitLimit``; only once after a previous attempt timed out.
    private func acquire() -> Bool {
        let tryOnce = lastAttemptTimedOut.withLock { $0 }
        let deadline = Date().addingTimeInterval(Self.waitLimit)
        var pause: useconds_t = 100
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                if tryOnce { lastAttemptTimedOut.withLock { $0 = false } }
                return true
            }
            guard errno == EWOULDBLOCK || errno == EINTR else { return false }
            if tryOnce || Date() >= deadline {
                lastAttemptTimedOut.withLock { $0 = true }
                return false
            }
            usleep(pause)
            pause = min(pause * 2, 4_000)
        }
    }

    // MARK: The change count

    /// The directory's change count: `0` when the file is missing or unreadable (a new or
    /// recreated directory).
    func readChangeCount() -> UInt64 {
        changeCountFile.withLock { descriptor in
            guard Self.reopenIfNeeded(&descriptor, path: changeCountPath) else { return 0 }
            var words: (UInt64, UInt64) = (0, 0)
            let count = withUnsafeMutableBytes(of: &words) { pread(descriptor, $0.baseAddress, 16, 0) }
            guard count == 16 else { return 0 }
            let value = UInt64(littleEndian: words.0)
            // The second word guards against a partly written file: anything else reads as 0.
            return UInt64(littleEndian: words.1) == ~value ? value : 0
        }
    }

    /// Writes the change count. Under the lock, so in place (no temporary file): a reader never
    /// sees it half-written, and a crash mid-write leaves a value that reads as 0, which no
    /// snapshot records and no cache expects.
    @discardableResult
    func writeChangeCount(_ value: UInt64) -> Bool {
        changeCountFile.withLock { descriptor in
            guard Self.reopenIfNeeded(&descriptor, path: changeCountPath) else { return false }
            var words = (value.littleEndian, (~value).littleEndian)
            return withUnsafeBytes(of: &words) { pwrite(descriptor, $0.baseAddress, 16, 0) } == 16
        }
    }

    /// The change count's file, kept open (two system calls per operation instead of seven):
    /// `-1` until opened, reopened when it was deleted (with the directory) since.
    private let changeCountFile = Locked<Int32>(-1)

    private static func reopenIfNeeded(_ descriptor: inout Int32, path: String) -> Bool {
        if descriptor >= 0 {
            var info = stat()
            if fstat(descriptor, &info) == 0, info.st_nlink > 0 { return true }
            close(descriptor)
        }
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        return descriptor >= 0
    }
}
