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
/// suspension is what iOS terminates an app for, `0xdead10cc`). The directory is opened for the
/// first operation and stays open, without a lock, while its path leads to it (it is opened
/// anew when it was deleted or renamed aside and made again); opening a cache, loading its
/// index and reading never open it (a snapshot written after reads does). `flock` belongs to the open file description: a child that
/// was forked while the directory was open and locked does not keep the lock once this process
/// unlocks it.
///
/// When the process's background assertion expires, ``interrupt()`` releases the lock at once,
/// from the expiring thread, under the operation holding it: the operation sees
/// ``isInterrupted`` at its next step and stops there (see ``BackgroundExecutionGate``). Every
/// step that changes the directory (a rename, an unlink) runs through ``commit(_:)``, which
/// checks again, atomically with the release: an interrupted operation changes nothing more.
///
/// The change count (``readChangeCount()`` / ``writeChangeCount(_:)``, a 16-byte file in the
/// snapshot's subdirectory) is raised, under the lock, before every change a cache makes to the
/// directory. A cache that finds it different from the value it last wrote knows that another
/// process changed the directory since, and brings its index up to date; a snapshot records it
/// and is trusted only while it is unchanged.
final class DiskCacheDirectoryLock: Sendable {
    private let directoryPath: String
    /// The directory, opened for the first operation and then kept open (no lock held between
    /// operations) while the path leads to it; `-1` until then, or while it cannot be opened.
    /// Its device and inode, and how many operations use it: it is never closed under one.
    private let directory = Locked<OpenDirectory>(OpenDirectory())

    private struct OpenDirectory {
        var descriptor: Int32 = -1
        var device: UInt64 = 0
        var inode: UInt64 = 0
        var users = 0
    }
    private let changeCountPath: String
    /// Whether the last attempt gave up: the next ones try once instead of waiting again.
    private let lastAttemptTimedOut = Locked(false)
    /// The running access: the descriptor whose lock it holds (`-1`: none) and whether it was
    /// interrupted. `flock` is called under this lock, so an interruption and an acquisition
    /// never cross.
    private let access = Locked<(heldDescriptor: Int32, isInterrupted: Bool)>((-1, false))
    /// Hears every commit before it is made (tests).
    private let beforeCommit = Locked<(@Sendable () -> Void)?>(nil)
    /// Hears every acquisition and release (tests).
    private let observer = Locked<(@Sendable (LockEvent) -> Void)?>(nil)

    /// What ``observe(_:)`` hears.
    enum LockEvent: Sendable, Equatable {
        case locked, unlocked
    }

    /// How long an operation waits by default for a peer that holds the lock before going
    /// ahead without it.
    static let defaultWaitLimit: TimeInterval = 1
    /// How long an operation waits for a peer that holds the lock before going ahead without it
    /// (``defaultWaitLimit``; tests lengthen it to hold an operation waiting).
    let waitLimit: TimeInterval

    /// A lock on `directoryPath`, which is opened when an operation first takes the lock.
    init(
        directoryPath: String,
        changeCountPath: String,
        waitLimit: TimeInterval = DiskCacheDirectoryLock.defaultWaitLimit
    ) {
        self.directoryPath = directoryPath
        self.waitLimit = waitLimit
        self.changeCountPath = changeCountPath
    }

    deinit {
        directory.withLock { if $0.descriptor >= 0 { close($0.descriptor) } }
        changeCountFile.withLock { if $0.descriptor >= 0 { close($0.descriptor) } }
    }

    /// The open directory for one more operation (``release()`` it after), opening it if it is
    /// not open yet or the path no longer leads to it (it was deleted, or renamed away: a lock
    /// on it would keep no other process out of the directory at the path now; one `stat`).
    /// `-1` when it cannot be opened: the operation then runs without the lock, and the next
    /// one tries again; `failure` says why when the directory exists but cannot be opened.
    private func useDirectory() -> (descriptor: Int32, failure: POSIXError?) {
        directory.withLock { directory in
            directory.users += 1
            if directory.descriptor >= 0 {
                let current = DiskCacheFileIO.directoryStamp(atPath: directoryPath)
                let isCurrent = current?.device == directory.device && current?.inode == directory.inode
                if isCurrent || directory.users > 1 { return (directory.descriptor, nil) }
                close(directory.descriptor)
            }
            directory.descriptor = DiskCacheFileIO.openDirectory(atPath: directoryPath)
            guard directory.descriptor < 0 else {
                let stamp = DiskCacheFileIO.directoryStamp(of: directory.descriptor)
                (directory.device, directory.inode) = (stamp?.device ?? 0, stamp?.inode ?? 0)
                return (directory.descriptor, nil)
            }
            let code = errno
            return (-1, code == ENOENT || code == ENOTDIR ? nil : DiskCacheFileIO.posixError(code))
        }
    }

    private func release() {
        directory.withLock { $0.users -= 1 }
    }

    /// Runs `body` holding the directory's lock, then releases it. `body` receives `false` when
    /// another process kept the lock for longer than ``waitLimit`` (a process stopped while it
    /// held it): it then runs without the lock, and must not do what needs it (deleting
    /// temporary files that may be another process's).
    ///
    /// Returns `nil`, without running `body` and without the lock, when `abandoning` says so
    /// while waiting for it (the process's background assertion is expiring: see
    /// ``BackgroundExecutionGate``).
    ///
    /// `openFailed` hears why the directory could not be opened, when it exists but cannot be
    /// (no read permission, no descriptor left): the operation runs without the lock.
    func withExclusiveAccess<T>(
        abandoning shouldAbandon: () -> Bool = { false },
        openFailed: (POSIXError) -> Void = { _ in },
        _ body: (_ isExclusive: Bool) throws -> T
    ) rethrows -> T? {
        let isExclusive: Bool
        let (descriptor, failure) = useDirectory()
        defer { release() }
        if let failure { openFailed(failure) }
        access.withLock { $0 = (-1, false) }
        switch acquire(descriptor, abandoning: shouldAbandon) {
        case .acquired: isExclusive = true
        case .timedOut: isExclusive = false
        case .abandoned: return nil
        }
        changeCountFile.withLock { $0.isInAccess = true; $0.isVerified = false }
        defer {
            changeCountFile.withLock { $0.isInAccess = false; $0.isVerified = false }
            if isExclusive { unlock() }
        }
        return try body(isExclusive)
    }

    /// Releases the lock of the running access now, if it holds it (its assertion expires):
    /// callable from any thread. The access goes on without the lock until its next step, where
    /// ``isInterrupted`` stops it; one still waiting for the lock gives up.
    func interrupt() {
        access.withLock { access in
            access.isInterrupted = true
            releaseHeld(&access)
        }
    }

    /// Whether the running access was interrupted: it must start nothing more.
    var isInterrupted: Bool { access.withLock { $0.isInterrupted } }

    /// Runs `commit`, one step that changes what other processes see (the rename of an entry or
    /// the snapshot into place, one unlink), unless the running access was interrupted: then
    /// `nil`, and nothing is done. Under the access's own lock, which ``interrupt()`` takes to
    /// release the `flock`: an interruption either comes first (the step is skipped) or waits
    /// the microseconds the step takes, so no such step ever runs after the lock was released
    /// under it (a suspended process would otherwise rename old bytes over a key another
    /// process rewrote meanwhile).
    func commit<T>(_ commit: () -> T) -> T? {
        beforeCommit.withLock { $0 }?()
        return access.withLock { access in
            access.isInterrupted ? nil : commit()
        }
    }

    /// Called before each ``commit(_:)`` (tests: to hold an operation inside its step).
    func observeCommits(_ hook: (@Sendable () -> Void)?) {
        beforeCommit.withLock { $0 = hook }
    }

    /// Whether the running access holds the lock (not timed out, not interrupted).
    var isHeld: Bool { access.withLock { $0.heldDescriptor >= 0 } }

    /// Calls `observer` at every acquisition and release (tests), on the thread doing it.
    func observe(_ observer: @escaping @Sendable (LockEvent) -> Void) {
        self.observer.withLock { $0 = observer }
    }

    private func notify(_ event: LockEvent) {
        observer.withLock { $0 }?(event)
    }

    private func unlock() {
        access.withLock { releaseHeld(&$0) }
    }

    /// Under `access`, so a release is heard once. (An acquisition is heard after `access` is
    /// released: an observer may hold the access there, as an operation would.)
    private func releaseHeld(_ access: inout (heldDescriptor: Int32, isInterrupted: Bool)) {
        guard access.heldDescriptor >= 0 else { return }
        flock(access.heldDescriptor, LOCK_UN)
        access.heldDescriptor = -1
        notify(.unlocked)
    }

    private enum Acquisition { case acquired, timedOut, abandoned }

    /// Takes the lock, polling with growing pauses (a blocking `flock` could wait forever behind
    /// a stopped process), for at most ``waitLimit``; only once after a previous attempt timed
    /// out. Gives up as soon as `shouldAbandon` says so.
    private func acquire(_ descriptor: Int32, abandoning shouldAbandon: () -> Bool) -> Acquisition {
        let tryOnce = lastAttemptTimedOut.withLock { $0 }
        let deadline = Date().addingTimeInterval(waitLimit)
        var pause: useconds_t = 100
        while true {
            if shouldAbandon() { return .abandoned }
            guard descriptor >= 0 else { return .timedOut }
            // Taken under `access`, so an interruption either finds it held (and releases it)
            // or comes first (and it is not taken).
            let (outcome, code): (Acquisition?, Int32) = access.withLock { access in
                if access.isInterrupted { return (.abandoned, 0) }
                guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return (nil, errno) }
                access.heldDescriptor = descriptor
                return (.acquired, 0)
            }
            if outcome == .abandoned { return .abandoned }
            if outcome == .acquired {
                notify(.locked)
                if tryOnce { lastAttemptTimedOut.withLock { $0 = false } }
                return .acquired
            }
            guard code == EWOULDBLOCK || code == EINTR else { return .timedOut }
            if tryOnce || Date() >= deadline {
                lastAttemptTimedOut.withLock { $0 = true }
                return .timedOut
            }
            usleep(pause)
            pause = min(pause * 2, 4_000)
        }
    }

    // MARK: The change count

    /// The directory's change count: `0` when the file is missing or unreadable (a new or
    /// recreated directory).
    func readChangeCount() -> UInt64 {
        changeCountFile.withLock { file in
            guard Self.reopenIfNeeded(&file, path: changeCountPath) else { return 0 }
            let descriptor = file.descriptor
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
        changeCountFile.withLock { file in
            guard Self.reopenIfNeeded(&file, path: changeCountPath) else { return false }
            let descriptor = file.descriptor
            var words = (value.littleEndian, (~value).littleEndian)
            let isWritten = withUnsafeBytes(of: &words) { pwrite(descriptor, $0.baseAddress, 16, 0) } == 16
            if !isWritten { file.isVerified = false } // a retry checks the file again
            return isWritten
        }
    }

    /// The change count's file, kept open across operations.
    private struct ChangeCountFile {
        /// `-1` until opened; reopened when it was deleted (with the directory) since.
        var descriptor: Int32 = -1
        /// Whether a ``withExclusiveAccess(_:)`` is running.
        var isInAccess = false
        /// Whether `descriptor` was found still linked (or was opened) during the running
        /// access: the write that follows the read in the same access skips the check, as if the
        /// directory were deleted just after that write instead of between the two calls.
        var isVerified = false
    }

    private let changeCountFile = Locked(ChangeCountFile())

    /// Opens the change count's file, or reopens it when it was deleted since it was opened (one
    /// `fstat`, once per access).
    private static func reopenIfNeeded(_ file: inout ChangeCountFile, path: String) -> Bool {
        if file.descriptor >= 0 {
            if file.isVerified { return true }
            var info = stat()
            if fstat(file.descriptor, &info) == 0, info.st_nlink > 0 {
                file.isVerified = file.isInAccess
                return true
            }
            close(file.descriptor)
        }
        file.descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | DiskCacheFileIO.nonBlocking | DiskCacheFileIO.noFollow, 0o644)
        file.isVerified = file.isInAccess && file.descriptor >= 0
        return file.descriptor >= 0
    }
}
