@preconcurrency import Dispatch
import Foundation

// The mutable state behind the cache's lock, and what is done with it held.
extension DiskCache {
    struct State {
        /// Empty until the index is loaded, on the queue, before any job queued after the load
        /// was requested.
        var index = DiskCacheIndex()
        var isIndexLoaded = false
        /// Whether the load is queued: from then on, every job queued runs after it.
        var isIndexLoadRequested = false
        var indexSource = IndexSource.listing
        /// Changes asked for before the index was loaded, and what reads see of them meanwhile.
        var beforeLoad = BeforeLoad()
        /// Entries read from their files before the index was loaded, to mark as used once it is.
        var readsBeforeLoad: [(name: DiskCacheEntryName, date: Date)] = []
        /// Entries (or metadata updates) not yet written, served from memory until they are.
        var staged: [DiskCacheEntryName: Staged] = [:]
        /// Access dates not yet persisted as modification dates.
        var pendingTouches: [DiskCacheEntryName: Date] = [:]
        var isTouchWriteScheduled = false
        var nextGeneration: UInt64 = 1
        /// Changes to the directory queued and not yet done. A snapshot is written only when
        /// there are none, so it always describes files that are on disk.
        var queuedFileOperations = 0
        /// Queued changes the ``BackgroundExecutionGate`` did not let start (still counted in
        /// `queuedFileOperations`), in order: run again when it resumes.
        var deferredFileOperations: [@Sendable () -> Void] = []
        /// When a read last asked for the deferred changes to resume (at most once a second).
        var lastResumeProbe: Date?
        /// Whether the index changed since the snapshot on disk was written (or there is none).
        var isSnapshotStale = false
        var isSnapshotWriteScheduled = false
        /// Timers armed under the lock, started by ``DiskCache/withState(_:)`` once it is
        /// released: starting one wakes a thread, and readers waiting for the lock would wait
        /// for that too.
        var timersToStart: Timers = []
        /// Whether a snapshot file may be on disk: it is deleted before the directory changes.
        var mayHaveSnapshotOnDisk = true
        /// The directory's change count as this cache last wrote or synchronized it (see
        /// ``DiskCacheDirectoryLock``): a different count on disk means another process changed
        /// the directory.
        var knownChangeCount: UInt64 = 0
        /// Whether another process may have changed the directory since the index last matched
        /// it: the index is brought up to date from a listing when the queue is next idle, and
        /// no snapshot is written until then.
        var needsResync = false
        /// Whether the directory's failure to open for the lock was reported (once per cache).
        var hasReportedOpenFailure = false
        /// Raised whenever a file operation is queued or the index is synchronized: a read of a
        /// file the index does not know is adopted only if it did not change meanwhile.
        var fileOperationEpoch: UInt64 = 0

        mutating func makeGeneration() -> UInt64 {
            defer { nextGeneration += 1 }
            return nextGeneration
        }
    }

    /// The delayed jobs a change can ask for.
    struct Timers: OptionSet {
        let rawValue: UInt8
        /// Writes the pending touches as modification dates.
        static let touches = Timers(rawValue: 1 << 0)
        /// Writes the index snapshot if it is stale.
        static let snapshot = Timers(rawValue: 1 << 1)
    }

    struct Staged {
        var key: String
        /// `nil` for a metadata-only update of an entry already on disk.
        var body: Data?
        var metadata: CachedResponseMetadata
        var generation: UInt64
        /// For a metadata-only update made only if the entry is still what was compared
        /// (``DiskCache/updateMetadata(_:ifStillStored:)``): the bytes the file must still hold
        /// when it is rewritten (another process may have stored a newer response meanwhile).
        var expectedBody: Data? = nil
    }

    func path(for name: DiskCacheEntryName) -> String {
        directoryPath + "/" + name.fileName
    }

    /// Removes the entry named `name`. With `orFileIfUnindexed` (a removal asked for before the
    /// index was loaded, which reads saw at once), also when the index has no record of it: its
    /// file may have come after the directory was read (another process's), and a read would
    /// find it again; it is deleted, under the lock, if it holds `key`.
    func removeLocked(_ name: DiskCacheEntryName, key: String?, orFileIfUnindexed: Bool = false, in state: inout State) {
        state.staged[name] = nil
        state.pendingTouches[name] = nil
        if let record = state.index.remove(name) {
            enqueueFileOperation(in: &state) { self.deleteFiles([record]) }
        } else if orFileIfUnindexed, let key {
            enqueueFileOperation(in: &state) { self.deleteFile(name, ifItHolds: key) }
        }
    }

    /// Counts an entry file at the size a read found (a file changed in place behind the cache,
    /// which its directory's stamp does not show), evicting others if that passes the limit.
    func correctSize(of name: DiskCacheEntryName, to fileSize: Int, in state: inout State) {
        guard let record = state.index.record(named: name), record.size != fileSize else { return }
        state.index.modify(name) { $0.size = fileSize }
        let evicted = evictLocked(protecting: name, in: &state)
        if !evicted.isEmpty {
            enqueueFileOperation(in: &state) { self.evictFiles(evicted) }
        }
    }

    func evictLocked(protecting name: DiskCacheEntryName?, in state: inout State) -> [Record] {
        let evicted = state.index.evict(toFit: sizeLimit, protecting: name)
        for record in evicted {
            state.staged[record.name] = nil
            state.pendingTouches[record.name] = nil
        }
        return evicted
    }

    func schedulePersistedTouch(_ name: DiskCacheEntryName, at date: Date, in state: inout State) {
        state.pendingTouches[name] = date
        armTouchTimer(in: &state)
    }

    /// Writes the pending touches one delay from now, unless that is already planned. Batched:
    /// one pass per delay, however many reads happen meanwhile.
    func armTouchTimer(in state: inout State) {
        guard !state.isTouchWriteScheduled else { return }
        state.isTouchWriteScheduled = true
        state.timersToStart.insert(.touches)
    }

    /// Runs `body` on the state under its lock, then starts the timers it armed.
    func withState<T>(_ body: (inout State) -> T) -> T {
        let (result, timers) = lockedState.withLock { state in
            let result = body(&state)
            let timers = state.timersToStart
            state.timersToStart = []
            return (result, timers)
        }
        // Weak: a cache nobody uses any more is released at once (and with it the directory lock).
        if timers.contains(.touches) {
            queue.asyncAfter(deadline: .now() + Self.touchPersistenceDelay) { [weak self] in self?.persistTouches() }
        }
        if timers.contains(.snapshot) {
            queue.asyncAfter(deadline: .now() + Self.snapshotDelay) { [weak self] in self?.writeSnapshotIfNeeded() }
        }
        return result
    }

    /// Drops a record after its file turned out to be missing or corrupt, unless it was
    /// replaced meanwhile. The deletion is queued behind any write already in flight.
    func forget(_ name: DiskCacheEntryName, generation: UInt64, deletingFile: Bool) {
        withState { state in
            guard state.staged[name] == nil,
                  state.index.record(named: name)?.generation == generation,
                  let record = state.index.remove(name)
            else { return }
            state.pendingTouches[name] = nil
            if deletingFile {
                enqueueFileOperation(in: &state) { self.deleteFiles([record]) }
            } else {
                scheduleSnapshot(in: &state)
            }
        }
    }
}
