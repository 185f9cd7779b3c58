#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

// Several processes on one directory (an app and its extensions in an App Group container).
//
// Each process has its own `DiskCache` and in-memory index. They coordinate through the
// directory only:
// - every change to the directory runs under its `flock`, taken for that operation alone
//   (`DiskCacheDirectoryLock`), after raising the directory's change count;
// - a cache that finds the count different from the one it last wrote learns that another
//   process changed the directory, and rebuilds its index from a listing when its queue is next
//   idle, keeping its own access order and pending writes, then evicts to the size limit;
// - a read the index cannot answer looks at the file (another process may have stored it) and
//   adopts it into the index;
// - a snapshot records the change count and is trusted only while it is unchanged, so one
//   process never opens from a snapshot that misses another's changes;
// - temporary files are named after the process, and only deleted under the lock, and only when
//   no write can be in flight: their writer is gone, or they are an hour old (a process
//   suspended mid-write still holds its write); every rename and unlink re-checks, under the
//   lock's own state, that the lock was not released under the operation.
extension DiskCache {
    /// Names this process's temporary files, so two processes never write the same one.
    static let processTag = String(getpid())

    /// Runs `body` on the queue holding the directory's lock (see
    /// ``DiskCacheDirectoryLock/withExclusiveAccess(abandoning:openFailed:_:)``) and reads the
    /// change count: a count this cache did not write means another process changed the
    /// directory. When `changing`, raises the count first, so that from this moment no other
    /// process (and no snapshot) takes the directory for what it was.
    ///
    /// Only while the process cannot be suspended: `nil`, with nothing done and no lock taken,
    /// when the ``BackgroundExecutionGate`` refuses (in the background with no assertion to be
    /// had, or one expiring) or the assertion expires while the lock is awaited. The caller
    /// defers the operation. When the assertion expires while `body` runs, the lock is released
    /// under it at once (``isInterrupted``): `body` stops at its next step and defers the rest
    /// (``deferFileOperation(_:)``).
    func withDirectoryAccess<T>(changing: Bool, _ body: (_ isExclusive: Bool) -> T) -> T? {
        let lock = directoryLock
        guard let operation = backgroundGate.beginLockedOperation(onInterrupt: { lock.interrupt() }) else { return nil }
        var isAbandoned = true
        defer { backgroundGate.endLockedOperation(operation, deferred: isAbandoned || lock.isInterrupted) }
        let result: T?? = directoryLock.withExclusiveAccess(
            abandoning: { backgroundGate.shouldAbandon },
            openFailed: { reportOpenFailure($0) }
        ) { isExclusive -> T? in
            // Interrupted as the lock was taken: nothing starts.
            guard !lock.isInterrupted else { return nil }
            isAbandoned = false
            let count = directoryLock.readChangeCount()
            withState { state in
                if count != state.knownChangeCount || !isExclusive { state.needsResync = true }
                state.knownChangeCount = count
            }
            if changing { announceChange() }
            return body(isExclusive)
        }
        return result ?? nil
    }

    /// Whether the running locked operation lost its lock to an expiring assertion: it starts
    /// no further step.
    var isInterrupted: Bool { directoryLock.isInterrupted }

    /// Reports, once per cache, that its directory exists but cannot be opened for the lock:
    /// its file operations then run without it (see ``DiskCache/Error/Operation/open``).
    func reportOpenFailure(_ failure: POSIXError) {
        let isFirst = withState { state in
            defer { state.hasReportedOpenFailure = true }
            return !state.hasReportedOpenFailure
        }
        if isFirst { report(Error(operation: .open, key: nil, path: directoryPath, underlying: failure)) }
    }

    /// Raises the directory's change count before a change (under the lock).
    func announceChange() {
        let next: UInt64 = withState { state in
            // From a missing or damaged count, a random one: never a count an old snapshot holds.
            var next = state.knownChangeCount == 0 ? UInt64.random(in: 1...UInt64.max) : state.knownChangeCount &+ 1
            if next == 0 { next = 1 }
            state.knownChangeCount = next
            return next
        }
        if !directoryLock.writeChangeCount(next) {
            // The snapshot's directory is gone with the cache directory: recreate and retry.
            try? Self.createDirectories(directoryPath, temporaryDirectoryPath, snapshotDirectoryPath)
            directoryLock.writeChangeCount(next)
        }
    }

    /// Brings the index up to date with the directory when another process changed it, if no
    /// file operation but the `queuedOperations` running ones is queued (a queued deletion or
    /// write would make the listing wrong about this process's own intentions; the last one
    /// synchronizes). Then evicts beyond the size limit. On the queue, under the lock.
    func synchronizeIfNeeded(queuedOperations: Int, isExclusive: Bool, hasAnnouncedChange: Bool) {
        guard isExclusive, !isInterrupted,
              withState({ $0.needsResync && $0.isIndexLoaded && $0.queuedFileOperations == queuedOperations })
        else { return }
        guard let files = try? FileIO.listFiles(atPath: directoryPath), !isInterrupted else { return }
        let pins = Self.pinnedNames(inDirectory: directoryPath)
        if let pins {
            let listed = Set(files.compactMap { DiskCacheEntryName(fileName: $0.name) })
            deleteOrphanMarkers(pins.filter { !listed.contains($0) })
        }
        let evicted: [Record]? = withState { state in
            guard state.needsResync, state.queuedFileOperations == queuedOperations else { return nil }
            state.index = merged(state.index, with: files, pins: pins, in: &state)
            state.needsResync = false
            state.fileOperationEpoch += 1
            scheduleSnapshot(in: &state)
            return evictLocked(protecting: nil, in: &state)
        }
        guard let evicted, !evicted.isEmpty else { return }
        if !hasAnnouncedChange { announceChange() }
        evictFiles(evicted)
    }

    /// `index` matched against a listing of the directory: records of files that are gone are
    /// dropped (unless a write of this process is pending), files it did not know are added
    /// (key unknown, used at their modification date), known files take their listed size
    /// (another process may have replaced them) and the later of the two use dates. Ordered by
    /// use date, the index's own order breaking ties. Pinned are the files with a marker in
    /// `pins` (another process may have pinned or unpinned them); without `pins` (the markers
    /// could not be listed), known records keep their pins.
    private func merged(
        _ index: DiskCacheIndex, with files: [FileIO.ListedFile], pins: Set<DiskCacheEntryName>?, in state: inout State
    ) -> DiskCacheIndex {
        var known: [DiskCacheEntryName: Record] = [:]
        let ordered = index.recordsByRecency()
        known.reserveCapacity(ordered.count)
        for record in ordered { known[record.name] = record }

        var records: [(order: Int, record: Record)] = []
        records.reserveCapacity(files.count)
        for file in files {
            guard let name = DiskCacheEntryName(fileName: file.name), file.size >= Format.minimumHeaderLength else { continue }
            if var record = known.removeValue(forKey: name) {
                if state.staged[name]?.body == nil { record.size = file.size }
                record.accessDate = max(record.accessDate, file.modificationDate)
                records.append((ordered.count, record))
            } else {
                let record = Record(
                    name: name, size: file.size, accessDate: file.modificationDate, key: nil, generation: state.makeGeneration()
                )
                records.append((ordered.count, record))
            }
        }
        // Not on disk: kept only while this process's own write of it is pending.
        for (name, record) in known {
            if state.staged[name] != nil {
                records.append((ordered.count, record))
            } else {
                state.pendingTouches[name] = nil
            }
        }
        let rank = Dictionary(uniqueKeysWithValues: ordered.enumerated().map { ($1.name, $0) })
        records = records.map { entry in
            var record = entry.record
            if let pins { record.isPinned = pins.contains(record.name) }
            return (rank[record.name] ?? entry.order, record)
        }
        records.sort { ($0.record.accessDate, $0.order) < ($1.record.accessDate, $1.order) }
        // Files whose listed sizes would take the total past what the index counts (sparse
        // files another process planted) stay out of it.
        var total = 0
        records.removeAll { entry in
            guard DiskCacheIndex.fits(entry.record.size, onTop: total) else { return true }
            total += entry.record.size
            return false
        }
        return DiskCacheIndex(recordsByRecency: records.map(\.record)) ?? index
    }

    /// Reads the file of an entry the index does not know: another process may have stored it.
    /// A verified entry is adopted into the index (and counts against the size limit) unless a
    /// file operation was queued meanwhile, which may have been about that very file.
    func readUnknownEntry(_ name: DiskCacheEntryName, key: String, epoch: UInt64, at now: Date) -> Entry? {
        guard case .hit(let body, let metadata, let fileSize) = readEntryFile(path(for: name), key, sizeLimit) else {
            return nil
        }
        // Another process may have pinned it.
        let isPinned = access(pinMarkerPath(for: name), F_OK) == 0
        withState { state in
            guard state.fileOperationEpoch == epoch, state.queuedFileOperations == 0,
                  state.index.record(named: name) == nil
            else { return }
            let generation = state.makeGeneration()
            state.index.upsert(Record(name: name, size: fileSize, accessDate: now, key: key, generation: generation, isPinned: isPinned))
            schedulePersistedTouch(name, at: now, in: &state)
            scheduleSnapshot(in: &state)
            let evicted = evictLocked(protecting: name, in: &state)
            if !evicted.isEmpty {
                enqueueFileOperation(in: &state) { self.evictFiles(evicted) }
            }
        }
        return Entry(key: key, data: body, metadata: metadata)
    }
}
