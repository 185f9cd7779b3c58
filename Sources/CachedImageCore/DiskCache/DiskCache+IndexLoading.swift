@preconcurrency import Dispatch
import Foundation

// Loading the index (from the snapshot or a listing, on the queue, before any job queued after
// it was requested), reads that come before it, and writing the snapshot.
//
// Opening does not load the index: a relaunch's first screens only read, and entry files verify
// themselves. The load is queued when something needs the index (a write, a count, a removal,
// `flush()`, a corrupt file to delete) or after `readsBeforeLoadLimit` reads, whichever comes
// first. Queuing it at open (or arming a timer for it) cost every relaunch's first image the
// thread wake-up and a share of the CPU (BENCHMARKS.md, table 7b; the
// measurement is in that file's git history).
extension DiskCache {
    /// Queues the index load unless it is queued already. Under the state lock, so that any job
    /// queued after this call (its caller took the lock first) runs after the load.
    func requestIndexLoad(in state: inout State) {
        guard !state.isIndexLoadRequested else { return }
        state.isIndexLoadRequested = true
        queue.async { self.loadIndex() }
    }

    /// Loads the index (from the snapshot or a listing), marks what was read meanwhile as used,
    /// evicts beyond the size limit, and applies the changes asked for meanwhile
    /// (``BeforeLoad``). On the queue, before any job that needs the index.
    ///
    /// Without the directory's lock: loading changes nothing (the deletions it decides, and
    /// the leftover temporary files, are queued as file operations, which take it). Reads take
    /// no lock either, but a relaunch that only reads is not lock-free for long: the load
    /// (queued by the 64th read) schedules a snapshot, written under the lock about 5 s later,
    /// when the reads changed the use order or the index came from a listing. The change count, read before and after, tells
    /// whether another process changed the directory meanwhile; then, or when the index came
    /// from a listing, it is brought up to date at the next locked operation.
    func loadIndex() {
        var failure: Error?
        var index: DiskCacheIndex
        let unusable: [Record]
        let fromSnapshot: Bool
        var changeCount: UInt64 = 0
        var hasTemporaryFiles = false
        var orphanMarkers: [DiskCacheEntryName] = []
        do {
            try Self.createDirectories(directoryPath, temporaryDirectoryPath, snapshotDirectoryPath)
            changeCount = directoryLock.readChangeCount()
            hasTemporaryFiles = (try? FileIO.listFiles(atPath: temporaryDirectoryPath))?.isEmpty == false
            (index, unusable, fromSnapshot) = try Self.openIndex(
                directoryPath: directoryPath, snapshotPath: snapshotPath, changeCount: changeCount
            )
            // The pins, from their markers (a snapshot does not hold them), before any eviction;
            // markers of no entry are deleted (below).
            for name in Self.pinnedNames(inDirectory: directoryPath) ?? [] {
                if index.record(named: name) == nil { orphanMarkers.append(name) }
                index.modify(name) { $0.isPinned = true }
            }
        } catch {
            // The directory could not be prepared or listed: run empty (files written from now
            // on are tracked) and say so.
            failure = error as? Error ?? Error(operation: .open, key: nil, path: directoryPath, underlying: error)
            (index, unusable, fromSnapshot) = (DiskCacheIndex(), [], false)
        }
        let isUnchanged = directoryLock.readChangeCount() == changeCount
        // The reads answered from files so far count as uses. Applied before taking the lock
        // for the install (the index is still this function's own, so nothing is copied and
        // no read waits for it); the few that come meanwhile are applied under it.
        var touches: [DiskCacheEntryName: Date] = [:]
        func touch(_ reads: [(name: DiskCacheEntryName, date: Date)]) {
            for read in reads where index.record(named: read.name) != nil {
                index.touch(read.name, at: read.date)
                touches[read.name] = read.date
            }
        }
        touch(withState { state in
            defer { state.readsBeforeLoad = [] }
            return state.readsBeforeLoad
        })
        withState { state in
            touch(state.readsBeforeLoad)
            state.readsBeforeLoad = []
            let evicted = index.evict(toFit: sizeLimit)
            state.nextGeneration = max(state.nextGeneration, UInt64(index.count + unusable.count + evicted.count + 1))
            swap(&state.index, &index)
            // Only indexed reads record touches, so there are none yet: take the load's own.
            assert(state.pendingTouches.isEmpty, "touches recorded before the index loaded")
            swap(&state.pendingTouches, &touches)
            for record in evicted { state.pendingTouches[record.name] = nil }
            state.indexSource = fromSnapshot ? .snapshot : .listing
            state.isIndexLoaded = true
            state.knownChangeCount = changeCount
            state.needsResync = !isUnchanged || !fromSnapshot
            if !state.pendingTouches.isEmpty { armTouchTimer(in: &state) }
            // Opened from a listing (write a snapshot so that the next open is fast), or the use
            // order changed. (Timers are armed only when there is something to write: arming
            // them on every open, to spare the first reads, made each open of the benchmark's
            // relaunch loop 45 µs slower while earlier caches' timers were pending.)
            if !fromSnapshot || !state.pendingTouches.isEmpty { scheduleSnapshot(in: &state) }
            // Queued first: before any change asked for meanwhile (a store may reuse a name).
            if !unusable.isEmpty || !evicted.isEmpty || !orphanMarkers.isEmpty {
                enqueueFileOperation(in: &state) { [orphanMarkers] in
                    self.deleteFiles(unusable)
                    self.evictFiles(evicted)
                    self.deleteOrphanMarkers(orphanMarkers)
                }
            }
            if hasTemporaryFiles {
                // A killed writer's, or a write in flight in a process suspended mid-write:
                // only the leftovers go (``isLeftover(_:now:)``), under the lock.
                enqueueFileOperation(in: &state) {
                    if self.directoryLock.isHeld { self.removeLeftoverTemporaryFiles() }
                }
            }
            applyChangesBeforeLoad(in: &state)
        }
        if let failure { report(failure) }
    }

    /// Runs `body` on the state once the index is loaded, loading it if needed and waiting for
    /// it: for queries (counts, listings). Changes never wait: ``withIndexOrLater(_:overlay:)``.
    /// Never called on the queue before the load: jobs are queued after it.
    func withIndex<T>(_ body: (inout State) -> T) -> T {
        let loaded: T? = withState { state in
            if state.isIndexLoaded { return body(&state) }
            requestIndexLoad(in: &state)
            return nil
        }
        if let loaded { return loaded }
        queue.sync {}
        return withState { body(&$0) }
    }

    /// The index, from the snapshot when it is intact and matches the directory (its stamp and
    /// `changeCount`), else from a listing; `unusable` are files too small to be entries (or too
    /// large to count, see ``DiskCacheIndex/maximumTotalSize``), to delete without opening them.
    static func openIndex(
        directoryPath: String,
        snapshotPath: String,
        changeCount: UInt64
    ) throws -> (index: DiskCacheIndex, unusable: [Record], fromSnapshot: Bool) {
        if let stamp = FileIO.directoryStamp(atPath: directoryPath),
           let bytes = FileIO.readFile(atPath: snapshotPath, maximumSize: 1 << 30),
           let records = Snapshot.decode(bytes, expecting: stamp, changeCount: changeCount, firstGeneration: 1),
           let index = DiskCacheIndex(recordsByRecency: records) {
            return (index, [], true)
        }

        let files: [FileIO.ListedFile]
        do {
            files = try FileIO.listFiles(atPath: directoryPath)
        } catch {
            throw Error(operation: .open, key: nil, path: directoryPath, underlying: error)
        }
        var index = DiskCacheIndex()
        var generation: UInt64 = 1
        var unusable: [Record] = []
        let entryFiles = files
            .compactMap { file in DiskCacheEntryName(fileName: file.name).map { (name: $0, file: file) } }
            .sorted { ($0.file.modificationDate, $0.file.name) < ($1.file.modificationDate, $1.file.name) }
        for (name, file) in entryFiles {
            let record = Record(
                name: name, size: file.size, accessDate: file.modificationDate, key: nil, generation: generation
            )
            generation += 1
            // Too small to hold even a header, or larger than the whole cache may count (a
            // sparse file another process planted): delete without opening it.
            if file.size < Format.minimumHeaderLength || !DiskCacheIndex.fits(file.size, onTop: index.totalSize) {
                unusable.append(record)
            } else {
                index.upsert(record)
            }
        }
        return (index, unusable, false)
    }

    /// Reads an entry while the index is loading. A corrupt file is deleted once the index is
    /// loaded, if it is still the file that was found at open.
    func readUnindexed(_ name: DiskCacheEntryName, key: String, metadataOverride: CachedResponseMetadata? = nil) -> Entry? {
        switch readEntryFile(path(for: name), key, sizeLimit) {
        case .hit(let body, let metadata, _):
            return Entry(key: key, data: body, metadata: metadataOverride ?? metadata)
        case .keyMismatch, .notFound:
            return nil
        case .corrupt:
            withState { state in
                enqueueFileOperation(in: &state) {
                    let record: Record? = self.withState { state in
                        // A record whose key is unknown was neither stored nor read since open.
                        guard state.staged[name] == nil, let record = state.index.record(named: name), record.key == nil
                        else { return nil }
                        state.pendingTouches[name] = nil
                        return state.index.remove(name)
                    }
                    if let record { self.deleteFiles([record]) }
                }
            }
            return nil
        }
    }

    /// Marks the snapshot as stale and schedules a new one, batched: one per delay.
    func scheduleSnapshot(in state: inout State) {
        state.isSnapshotStale = true
        armSnapshotTimer(in: &state)
    }

    /// Writes the snapshot (if stale) one delay from now, unless that is already planned.
    func armSnapshotTimer(in state: inout State) {
        guard !state.isSnapshotWriteScheduled else { return }
        state.isSnapshotWriteScheduled = true
        state.timersToStart.insert(.snapshot)
    }

    /// Deletes the snapshot before the first change to the directory after it was written, so
    /// that a crash during the change cannot leave a snapshot that no longer matches.
    func deleteSnapshotBeforeChange() {
        let mayHaveSnapshot = withState { state in
            defer { state.mayHaveSnapshotOnDisk = false }
            return state.mayHaveSnapshotOnDisk
        }
        guard mayHaveSnapshot else { return }
        // Interrupted: kept for the next attempt (the change is deferred too).
        if directoryLock.commit({ try? FileIO.removeFile(atPath: snapshotPath) }) == nil {
            withState { $0.mayHaveSnapshotOnDisk = true }
        }
    }

    /// Writes the index as a snapshot if it changed and no change to the directory is pending,
    /// first bringing the index up to date with other processes' changes (so `flush()` also
    /// applies the size limit to what they stored).
    ///
    /// Takes the lock only when there is something to do: the snapshot is stale, the index may
    /// not match the directory, or another process changed it (its change count, read without
    /// the lock); a timer that finds nothing changed touches nothing.
    func writeSnapshotIfNeeded() {
        probeDeferredOperations()
        let work: (isStale: Bool, knownChangeCount: UInt64)? = withState { state in
            state.isSnapshotWriteScheduled = false
            // Deferred changes: asked for again one delay from now, while the process runs.
            if !state.deferredFileOperations.isEmpty { armSnapshotTimer(in: &state) }
            // Pending changes reschedule the snapshot when they finish.
            guard state.isIndexLoaded, state.queuedFileOperations == 0 else { return nil }
            return (state.isSnapshotStale || state.needsResync, state.knownChangeCount)
        }
        guard let work, work.isStale || directoryLock.readChangeCount() != work.knownChangeCount else { return }
        // Refused while the process may be suspended: written when the gate resumes.
        _ = withDirectoryAccess(changing: false) { isExclusive in
            synchronizeIfNeeded(queuedOperations: 0, isExclusive: isExclusive, hasAnnouncedChange: false)
            writeSnapshot()
        }
    }

    /// Writes the snapshot, under the directory's lock, if the index is stale and matches the
    /// directory (no other process changed it unseen, no change of this process pending).
    private func writeSnapshot() {
        let snapshot: (records: [Record], changeCount: UInt64)? = withState { state in
            guard state.isSnapshotStale, !state.needsResync, state.queuedFileOperations == 0, state.staged.isEmpty
            else { return nil }
            state.isSnapshotStale = false
            return (state.index.recordsByRecency(), state.knownChangeCount)
        }
        guard let (records, changeCount) = snapshot else { return }
        guard !isInterrupted else {
            withState { $0.isSnapshotStale = true }
            return
        }
        do {
            // The snapshot's own directory first: creating it changes the cache directory's stamp.
            try Self.createDirectories(directoryPath, temporaryDirectoryPath, snapshotDirectoryPath)
            guard let stamp = FileIO.directoryStamp(atPath: directoryPath) else { throw POSIXError(.ENOENT) }
            withState { $0.mayHaveSnapshotOnDisk = true }
            let outcome = try FileIO.writeAtomically(
                Snapshot.encode(records, stamp: stamp, changeCount: changeCount),
                temporaryPath: snapshotTemporaryPath, finalPath: snapshotPath, commit: directoryLock.commit
            )
            if outcome != .committed { withState { $0.isSnapshotStale = true } }
        } catch {
            // Nothing is lost: the next open lists the directory. Retried after the next change.
            withState { $0.isSnapshotStale = true }
        }
    }
}
