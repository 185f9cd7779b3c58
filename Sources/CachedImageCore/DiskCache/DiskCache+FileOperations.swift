@preconcurrency import Dispatch
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

// Changes to the directory, queued and run on the cache's serial queue.
extension DiskCache {
    /// Queues a change to the directory. It is counted (no snapshot is written while one is
    /// pending) and preceded by deleting the snapshot, which would no longer match.
    func enqueueFileOperation(in state: inout State, _ operation: @escaping @Sendable () -> Void) {
        requestIndexLoad(in: &state) // first: the operation may need the index
        state.queuedFileOperations += 1
        state.fileOperationEpoch += 1
        queue.async { self.runFileOperation(operation) }
    }

    /// Runs a queued change under the directory's lock, or defers it (still counted as queued,
    /// its staged bytes still served from memory) when the process may be suspended holding
    /// the lock (see ``BackgroundExecutionGate``), or when earlier ones are deferred: changes
    /// keep their order. On the queue.
    private func runFileOperation(_ operation: @escaping @Sendable () -> Void) {
        let isBehindDeferred = withState { !$0.deferredFileOperations.isEmpty }
        if isBehindDeferred {
            withState { $0.deferredFileOperations.append(operation) }
            probeDeferredOperations()
            return
        }
        let ran: Void? = withDirectoryAccess(changing: true) { isExclusive in
            self.deleteSnapshotBeforeChange()
            operation()
            // The last queued operation brings the index up to date with what other
            // processes changed.
            self.synchronizeIfNeeded(queuedOperations: 1, isExclusive: isExclusive, hasAnnouncedChange: true)
        }
        withState { state in
            guard ran != nil else {
                state.deferredFileOperations.append(operation)
                // The snapshot timer asks again (``probeDeferredOperations()``).
                armSnapshotTimer(in: &state)
                return
            }
            state.queuedFileOperations -= 1
            self.scheduleSnapshot(in: &state)
        }
    }

    /// Where nothing else would resume the deferred changes (an extension is never told it may
    /// run), asks for an assertion: one granted resumes them all, in order. Asked by a new
    /// change, by the snapshot timer (armed while changes are deferred) and, at most once a
    /// second, by a read. On the queue.
    func probeDeferredOperations() {
        guard withState({ !$0.deferredFileOperations.isEmpty }) else { return }
        if let probe = backgroundGate.beginLockedOperation() { backgroundGate.endLockedOperation(probe) }
    }

    /// Queues `operation` behind the deferred changes (counted as queued, run when the gate
    /// resumes): what an interrupted operation had not done yet.
    func deferFileOperation(_ operation: @escaping @Sendable () -> Void) {
        withState { state in
            state.queuedFileOperations += 1
            state.fileOperationEpoch += 1
            state.deferredFileOperations.append(operation)
            armSnapshotTimer(in: &state)
        }
    }

    /// Runs the deferred changes again, in order (the gate's resume handler: the process is
    /// active again, or could have an assertion again), then the snapshot they held back.
    func resumeDeferredOperations() {
        queue.async {
            let deferred: [@Sendable () -> Void] = self.withState { state in
                defer { state.deferredFileOperations = [] }
                return state.deferredFileOperations
            }
            for operation in deferred { self.runFileOperation(operation) }
            self.writeSnapshotIfNeeded()
        }
    }

    func performWrite(name: DiskCacheEntryName, generation: UInt64, evicting evicted: [Record]) {
        evictFiles(evicted)
        // Interrupted (the assertion expired): the write waits for the next resume.
        if isInterrupted {
            deferFileOperation { self.performWrite(name: name, generation: generation, evicting: []) }
            return
        }
        let job: (staged: Staged, accessDate: Date)? = withState { state in
            guard let staged = state.staged[name], staged.generation == generation else { return nil }
            return (staged, state.index.record(named: name)?.accessDate ?? clock.now)
        }
        guard let job else { return }
        let finalPath = path(for: name)
        let key = job.staged.key

        let body: Data
        if let staged = job.staged.body {
            body = staged
        } else {
            switch FileIO.readEntry(atPath: finalPath, key: key, maximumSize: sizeLimit) {
            case .hit(let existing, _, _):
                if let expected = job.staged.expectedBody, expected != existing {
                    // Another process stored a newer response since the comparison: its bytes
                    // keep their own metadata.
                    withState { state in
                        if state.staged[name]?.generation == generation { state.staged[name] = nil }
                    }
                    return
                }
                body = existing
            case .keyMismatch:
                // A different key owns this file name: leave its entry alone.
                withState { state in
                    if state.staged[name]?.generation == generation { state.staged[name] = nil }
                }
                return
            case .notFound:
                dropRecord(name, generation: generation)
                return
            case .corrupt:
                if dropRecord(name, generation: generation) { _ = directoryLock.commit { removeEntryFile(name) } }
                return
            }
        }

        let header = Format.encodeHeader(
            key: key, metadata: job.staged.metadata, bodyLength: body.count, bodyChecksum: Format.bodyChecksum(body)
        )
        // One interpolation (one buffer) rather than a chain of `+`, each a new string.
        let temporaryPath = "\(temporaryDirectoryPath)/\(name.fileName).\(Self.processTag).\(generation).tmp"
        let operation: Error.Operation = job.staged.body == nil ? .updateMetadata : .write
        let outcome: FileIO.Commit
        do {
            var written = FileIO.Commit.interrupted
            try writeCreatingDirectoriesIfNeeded {
                written = try FileIO.writeEntry(
                    header: header, body: body, modificationDate: job.accessDate,
                    temporaryPath: temporaryPath, finalPath: finalPath, commit: directoryLock.commit
                )
            }
            outcome = written
        } catch {
            // Nothing was renamed, and the lock is held (no other process wrote the entry
            // meanwhile): the previous version goes too, unless interrupted by now.
            report(Error(operation: operation, key: key, path: finalPath, underlying: error))
            if dropRecord(name, generation: generation) { _ = directoryLock.commit { removeEntryFile(name) } }
            return
        }
        switch outcome {
        case .committed:
            break
        case .interrupted:
            // The lock was released under the write (the assertion expired): its temporary file
            // is gone, and the write waits for the next resume.
            deferFileOperation { self.performWrite(name: name, generation: generation, evicting: []) }
            return
        case .failed(let error):
            // Whatever is at the final path is left alone: it may be another process's newer
            // entry (this one's temporary file deleted under it while it was suspended).
            report(Error(operation: operation, key: key, path: finalPath, underlying: error))
            dropRecord(name, generation: generation)
            return
        }

        let evictedAfterWrite: [Record] = withState { state in
            if state.staged[name]?.generation == generation { state.staged[name] = nil }
            let size = header.count + body.count
            guard let record = state.index.record(named: name), record.generation == generation,
                  record.size != size
            else { return [] }
            // Only a metadata update of an entry that was on disk changes the size here.
            state.index.modify(name) { $0.size = size }
            var evicted = evictLocked(protecting: name, in: &state)
            if size > sizeLimit, !record.isPinned, let record = state.index.remove(name) {
                evicted.append(record)
            }
            return evicted
        }
        evictFiles(evictedAfterWrite)
    }

    /// Forgets an entry whose pending write could not complete. `true` if it was still current.
    @discardableResult
    func dropRecord(_ name: DiskCacheEntryName, generation: UInt64) -> Bool {
        withState { state in
            guard state.staged[name]?.generation == generation else { return false }
            state.staged[name] = nil
            state.pendingTouches[name] = nil
            if state.index.record(named: name)?.generation == generation {
                state.index.remove(name)
            }
            return true
        }
    }

    func writeCreatingDirectoriesIfNeeded(_ write: () throws -> Void) throws {
        do {
            try write()
        } catch let error as POSIXError where error.code == .ENOENT || error.code == .ENOTDIR {
            // The directory was deleted under us: recreate it and try once more.
            try Self.createDirectories(directoryPath, temporaryDirectoryPath, nil)
            try write()
        }
    }

    func persistTouches() {
        let touches: [(DiskCacheEntryName, Date)] = withState { state in
            state.isTouchWriteScheduled = false
            defer { state.pendingTouches.removeAll() }
            return state.pendingTouches.filter { name, _ in
                state.staged[name] == nil && state.index.record(named: name) != nil
            }.map { ($0.key, $0.value) }
        }
        for (name, date) in touches {
            FileIO.setModificationDate(date, atPath: path(for: name))
        }
    }

    /// Deletes the files of `records` (removed entries, not evicted ones: ``evictFiles(_:)``),
    /// each one's pin marker first, one step each: when the running operation is interrupted,
    /// the rest is deferred.
    func deleteFiles(_ records: [Record]) {
        removeFiles(records.flatMap { [(pinMarkerPath(for: $0.name), nil), (path(for: $0.name), $0.key)] }, operation: .remove)
    }

    /// Deletes every entry file and the temporary files, one step each (the rest deferred when
    /// interrupted).
    func deleteAllFiles() {
        let files: [FileIO.ListedFile]
        do {
            files = try FileIO.listFiles(atPath: directoryPath)
        } catch {
            if (error as? POSIXError)?.code != .ENOENT {
                report(Error(operation: .removeAll, key: nil, path: directoryPath, underlying: error))
            }
            return
        }
        let paths = files.filter { KeyHasher.isFileName($0.name) }.map { (directoryPath + "/" + $0.name, String?.none) }
        // The pins first: an entry left by an interruption is unpinned, never a pin left alone.
        guard deleteAllPinMarkers() else {
            // Interrupted among the markers (the rest deferred): the entries follow them.
            deferFileOperation { self.deleteEntryFiles(paths) }
            return
        }
        deleteEntryFiles(paths)
    }

    /// Deletes the entry files `removeAll` listed, then the temporary files.
    private func deleteEntryFiles(_ paths: [(path: String, key: String?)]) {
        guard removeFiles(paths, operation: .removeAll) else {
            // Interrupted: the temporary files follow the rest of the deletions.
            deferFileOperation { self.removeLeftoverTemporaryFiles() }
            return
        }
        removeLeftoverTemporaryFiles()
    }

    /// Deletes `files`, each unlink a commit (``DiskCacheDirectoryLock/commit(_:)``): once the
    /// running operation is interrupted, defers the rest and returns `false`.
    @discardableResult
    func removeFiles(_ files: [(path: String, key: String?)], operation: Error.Operation) -> Bool {
        for (index, file) in files.enumerated() {
            let removed: Result<Void, any Swift.Error>? = directoryLock.commit {
                Result { try FileIO.removeFile(atPath: file.path) }
            }
            guard let removed else {
                let rest = Array(files[index...])
                deferFileOperation { self.removeFiles(rest, operation: operation) }
                return false
            }
            if case .failure(let error) = removed {
                report(Error(operation: operation, key: file.key, path: file.path, underlying: error))
            }
        }
        return true
    }

    /// Deletes the file of the entry `name` if it holds `key` (its header says so), its pin
    /// marker first, as a commit; deferred when interrupted.
    func deleteFile(_ name: DiskCacheEntryName, ifItHolds key: String) {
        guard case .header(let fileKey, _, _) = FileIO.readHeader(atPath: path(for: name)), fileKey == key else { return }
        if directoryLock.commit({ removeEntryFile(name) }) == nil {
            deferFileOperation { self.deleteFile(name, ifItHolds: key) }
        }
    }

    /// Deletes the file of the entry `name` and its pin marker, the marker first (inside a
    /// commit): a marker never outlives its entry to pin a later one nobody asked to pin.
    private func removeEntryFile(_ name: DiskCacheEntryName) {
        try? FileIO.removeFile(atPath: pinMarkerPath(for: name))
        try? FileIO.removeFile(atPath: path(for: name))
    }

    /// Deletes the temporary files no write can still need, each unlink a commit (the rest
    /// deferred when interrupted): see ``isLeftover(_:now:)``.
    func removeLeftoverTemporaryFiles() {
        guard let files = try? FileIO.listFiles(atPath: temporaryDirectoryPath) else { return }
        let now = Date()
        for file in files where Self.isLeftover(file, now: now) {
            let path = temporaryDirectoryPath + "/" + file.name
            guard directoryLock.commit({ try? FileIO.removeFile(atPath: path) }) != nil else {
                deferFileOperation { self.removeLeftoverTemporaryFiles() }
                return
            }
        }
    }

    /// How old a temporary file of a process still running must be to count as left over.
    static let leftoverTemporaryFileAge: TimeInterval = 60 * 60

    /// Whether a temporary file is left over, not a write in flight: holding the lock is not
    /// enough to tell, as a process suspended mid-write (its assertion expired, the lock
    /// released under it) writes on when it runs again. Left over: its writer (the process
    /// number in its name, `<entry>.<pid>.<generation>.tmp`) is gone (`kill(pid, 0)` fails with
    /// `ESRCH`; `EPERM` means it runs), its name is not one this cache makes, or it was written
    /// more than ``leftoverTemporaryFileAge`` ago.
    static func isLeftover(_ file: FileIO.ListedFile, now: Date) -> Bool {
        if now.timeIntervalSince(file.statusChangeDate) > leftoverTemporaryFileAge { return true }
        let parts = file.name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[3] == "tmp", let pid = pid_t(parts[1]), pid > 0 else { return true }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    func report(_ error: Error) {
        for handler in errorHandlers.withLock({ $0 }) { handler(error) }
    }

    /// Adds an error handler (a second pipeline sharing this cache reports failures too).
    func addErrorHandler(_ handler: @escaping @Sendable (DiskCache.Error) -> Void) {
        errorHandlers.withLock { $0.append(handler) }
    }
}
