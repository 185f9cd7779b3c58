#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

// Pinned entries: eviction by size passes over them.
//
// A pin is an empty marker file named like the entry in the `pinned` subdirectory, so that
// - it survives a relaunch, and a listing finds it without reading any entry (a snapshot's index
//   and a listing's alike get their pins from the markers at load);
// - it is never torn: creating or deleting an empty file is one step, and the entry file itself
//   is never moved or rewritten for it (a new version of a pinned entry stays pinned while
//   the pinned budget `store` is given holds it);
// - other processes respect it: markers are created and deleted under the directory's lock,
//   after raising its change count (their next locked operation lists the markers again), and an
//   eviction looks for the marker under the lock before it deletes a file, so a process whose
//   index has not seen a pin yet never deletes the pinned entry.
// Pinned entries count against their own budget (the pinned size limit, across processes,
// checked when pinning), not against `sizeLimit`. Removing an entry (or everything) removes its
// pin first, so a crash in between leaves an entry unpinned, never a pin without its reason.
extension DiskCache {
    /// What pinning an entry came to.
    package enum PinOutcome: Sendable, Equatable {
        /// The entry is pinned (its marker is written on the cache's queue).
        case pinned
        /// No entry is stored under the key.
        case notStored
        /// The pinned entries (`pinnedSize` bytes, files included) and this one (`size`) would
        /// pass `limit`: nothing changed.
        case overLimit(size: Int, pinnedSize: Int, limit: Int)
    }

    /// The subdirectory holding one empty marker file per pinned entry.
    static let pinsDirectoryName = "pinned"
    var pinsDirectoryPath: String { directoryPath + "/" + Self.pinsDirectoryName }
    func pinMarkerPath(for name: DiskCacheEntryName) -> String {
        pinsDirectoryPath + "/" + name.fileName
    }

    /// Stores `data` like `store(_:metadata:forKey:)` and pins it, if the pinned entries with it
    /// stay within `limit` bytes (a previous version of the key's entry does not count) and it
    /// is no larger than ``sizeLimit`` (as every entry); nothing is stored otherwise. Waits for
    /// the index to load.
    package func storePinned(_ data: Data, metadata: CachedResponseMetadata, forKey key: String, limit: Int) -> PinOutcome {
        let name = nameForKey(key)
        let headerLength = Format.headerLength(keyByteCount: key.utf8.count, metadata: metadata)
        let size = headerLength + data.count
        return withIndex { state in
            let previous = state.index.record(named: name)
            let pinnedSize = state.index.pinnedSize - (previous?.isPinned == true ? previous?.size ?? 0 : 0)
            // No entry is larger than the size limit, pinned or not: reads refuse larger files.
            let limit = min(limit, sizeLimit + pinnedSize)
            guard size <= limit - pinnedSize else { return .overLimit(size: size, pinnedSize: pinnedSize, limit: limit) }
            // A header no entry may have (a key of a megabyte): stored as `store` does, not at all.
            guard headerLength <= Format.maximumHeaderLength else { return .notStored }
            let generation = state.makeGeneration()
            state.staged[name] = Staged(key: key, body: data, metadata: metadata, generation: generation)
            state.pendingTouches[name] = nil
            state.index.upsert(Record(name: name, size: size, accessDate: clock.now, key: key, generation: generation, isPinned: true))
            let evicted = evictLocked(protecting: name, in: &state)
            enqueueFileOperation(in: &state) { self.performWrite(name: name, generation: generation, evicting: evicted) }
            enqueueFileOperation(in: &state) { self.writePinMarker(name, key: key, limit: limit) }
            return .pinned
        }
    }

    /// Pins the entry stored under `key`, if the pinned entries with it stay within `limit`
    /// bytes. Pinning a pinned entry does nothing. Waits for the index to load; an entry the
    /// index does not know (another process may have stored it) is read, and adopted, first.
    package func pinEntry(forKey key: String, limit: Int) -> PinOutcome {
        let outcome = pinIndexedEntry(forKey: key, limit: limit)
        guard outcome == .notStored, entry(forKey: key) != nil else { return outcome }
        return pinIndexedEntry(forKey: key, limit: limit)
    }

    private func pinIndexedEntry(forKey key: String, limit: Int) -> PinOutcome {
        let name = nameForKey(key)
        return withIndex { state in
            guard let record = state.index.record(named: name), record.key == nil || record.key == key,
                  state.staged[name].map({ $0.key == key }) ?? true
            else { return .notStored }
            if record.isPinned { return .pinned }
            guard record.size <= limit - state.index.pinnedSize else {
                return .overLimit(size: record.size, pinnedSize: state.index.pinnedSize, limit: limit)
            }
            state.index.modify(name) { $0.isPinned = true }
            enqueueFileOperation(in: &state) { self.writePinMarker(name, key: key, limit: limit) }
            return .pinned
        }
    }

    /// Unpins the entry stored under `key`: it counts against ``sizeLimit`` again, at its place
    /// in the use order, and eviction may take it (least recently used entries beyond the
    /// limit are evicted now). Does nothing for an entry that is not pinned. Waits for the
    /// index to load. A pin this index has not learnt yet (another process made it) goes too:
    /// its marker is deleted.
    package func unpinEntry(forKey key: String) {
        let name = nameForKey(key)
        let isIndexedPin = withIndex { state -> Bool in
            guard let record = state.index.record(named: name), record.isPinned, record.key == nil || record.key == key else { return false }
            state.index.modify(name) { $0.isPinned = false }
            let evicted = evictLocked(protecting: nil, in: &state)
            enqueueFileOperation(in: &state) {
                self.removePinMarker(name, key: key)
                self.evictFiles(evicted)
            }
            return true
        }
        guard !isIndexedPin, access(pinMarkerPath(for: name), F_OK) == 0 else { return }
        withState { state in
            enqueueFileOperation(in: &state) { self.removePinMarker(name, key: key) }
        }
    }

    /// Whether the entry stored under `key` is pinned (as this process knows it).
    package func isEntryPinned(forKey key: String) -> Bool {
        let name = nameForKey(key)
        return withIndex { state in
            guard let record = state.index.record(named: name), record.key == nil || record.key == key else { return false }
            return record.isPinned
        }
    }

    /// The sum of the pinned entries' file sizes, in bytes (part of ``totalSize``).
    package var pinnedSize: Int {
        withIndex { $0.index.pinnedSize }
    }

    // MARK: Markers (on the queue, under the directory's lock)

    /// The entries pinned in the directory at `directoryPath`: its markers' names (none without
    /// a `pinned` subdirectory), or `nil` when it cannot be listed (the pins are unknown, not gone).
    static func pinnedNames(inDirectory directoryPath: String) -> Set<DiskCacheEntryName>? {
        do {
            let files = try FileIO.listFiles(atPath: directoryPath + "/" + pinsDirectoryName)
            return Set(files.compactMap { DiskCacheEntryName(fileName: $0.name) })
        } catch {
            return (error as? POSIXError)?.code == .ENOENT ? [] : nil
        }
    }

    /// Writes the marker of the entry `name`, once its file is on disk, if every pinned entry in
    /// the directory (other processes' included) and this one stay within `limit`; otherwise
    /// the entry stays, unpinned, and the refusal is reported (``Error/Operation/pin``).
    /// Markers whose entry file is gone are deleted on the way.
    func writePinMarker(_ name: DiskCacheEntryName, key: String, limit: Int) {
        guard withState({ $0.index.record(named: name)?.isPinned == true }) else { return }
        guard !isInterrupted else {
            // The assertion expired as this operation began: the pin waits for the next resume.
            deferFileOperation { self.writePinMarker(name, key: key, limit: limit) }
            return
        }
        guard let size = Self.fileSize(atPath: path(for: name)) else {
            withState { state in
                if state.staged[name]?.body != nil {
                    // A newer store of the entry replaced the write this followed: after its write.
                    enqueueFileOperation(in: &state) { self.writePinMarker(name, key: key, limit: limit) }
                } else {
                    // The write failed, or the entry was removed since: nothing to pin.
                    state.index.modify(name) { $0.isPinned = false }
                }
            }
            return
        }
        var others = 0
        for marker in (try? FileIO.listFiles(atPath: pinsDirectoryPath)) ?? [] where marker.name != name.fileName {
            guard let other = DiskCacheEntryName(fileName: marker.name) else { continue }
            if let otherSize = Self.fileSize(atPath: path(for: other)) {
                others += otherSize
            } else {
                _ = directoryLock.commit { try? FileIO.removeFile(atPath: pinsDirectoryPath + "/" + marker.name) }
            }
        }
        let isWithinBudget = others <= limit - size
        let created: Int32? = isWithinBudget ? directoryLock.commit { createMarker(name) } : EDQUOT
        guard let created else {
            deferFileOperation { self.writePinMarker(name, key: key, limit: limit) }
            return
        }
        guard created != 0 else { return }
        // Refused (another process pinned meanwhile) or failed: the entry counts as unpinned.
        let evicted: [Record] = withState { state in
            state.index.modify(name) { $0.isPinned = false }
            return evictLocked(protecting: name, in: &state)
        }
        let underlying: any Swift.Error = isWithinBudget
            ? POSIXError(POSIXErrorCode(rawValue: created) ?? .EIO)
            : Self.pinnedSizeLimitError(key: key, size: size, pinnedSize: others, limit: limit)
        report(Error(operation: .pin, key: key, path: pinMarkerPath(for: name), underlying: underlying))
        evictFiles(evicted)
    }

    /// The underlying error of a pin the pinned budget refused (reported as ``Error/Operation/pin``):
    /// the one ``ImagePipeline/pinImage(forKey:)`` throws when it can tell at once, for the
    /// entry's URL (the key itself for a URL's entry, ``ImagePipeline/customKeyURL(_:)`` otherwise).
    static func pinnedSizeLimitError(key: String, size: Int, pinnedSize: Int, limit: Int) -> any Swift.Error {
        let url = key.hasPrefix(ImagePipeline.customKeyPrefix)
            ? ImagePipeline.customKeyURL(String(key.dropFirst(ImagePipeline.customKeyPrefix.count)))
            : URL(string: key) ?? ImagePipeline.customKeyURL(key)
        return ImagePipeline.Error.pinnedSizeLimitExceeded(url: url, size: size, pinnedSize: pinnedSize, limit: limit)
    }

    /// Creates the empty marker file (and the pins' directory if needed): 0, or the `errno`.
    private func createMarker(_ name: DiskCacheEntryName) -> Int32 {
        let path = pinMarkerPath(for: name)
        var descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        if descriptor < 0, errno == ENOENT {
            try? FileManager.default.createDirectory(atPath: pinsDirectoryPath, withIntermediateDirectories: true)
            descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        }
        guard descriptor >= 0 else { return errno }
        close(descriptor)
        return 0
    }

    /// Deletes the marker of the entry `name` (deferred when interrupted).
    func removePinMarker(_ name: DiskCacheEntryName, key: String) {
        let path = pinMarkerPath(for: name)
        guard let removed = directoryLock.commit({ Result { try FileIO.removeFile(atPath: path) } }) else {
            deferFileOperation { self.removePinMarker(name, key: key) }
            return
        }
        if case .failure(let error) = removed { report(Error(operation: .pin, key: key, path: path, underlying: error)) }
    }

    /// Deletes the files of entries evicted by size, except those another process pinned since
    /// this one's index last matched the directory (their marker is there): the index learns
    /// them again, pinned, from the next listing. Each record's marker is looked for and its
    /// file deleted in one commit, so a pin made while this eviction was interrupted (the rest
    /// deferred, perhaps for hours) is seen when it resumes.
    func evictFiles(_ records: [Record]) {
        var pinnedElsewhere = false
        defer { if pinnedElsewhere { withState { $0.needsResync = true } } }
        for (index, record) in records.enumerated() {
            let markerPath = pinMarkerPath(for: record.name), path = path(for: record.name)
            let removed: Result<Bool, any Swift.Error>? = directoryLock.commit {
                guard access(markerPath, F_OK) != 0 else { return .success(false) }
                return Result { try FileIO.removeFile(atPath: path); return true }
            }
            switch removed {
            case nil:
                let rest = Array(records[index...])
                deferFileOperation { self.evictFiles(rest) }
                return
            case .success(let isRemoved):
                if !isRemoved { pinnedElsewhere = true }
            case .failure(let error):
                report(Error(operation: .remove, key: record.key, path: path, underlying: error))
            }
        }
    }

    /// Deletes the markers of `names` whose entry file is gone (each looked for and deleted in
    /// one commit; the rest deferred when interrupted): a marker left alone would pin a later
    /// entry of that name nobody asked to pin.
    func deleteOrphanMarkers(_ names: some Collection<DiskCacheEntryName>) {
        for (index, name) in names.enumerated() {
            let entryPath = path(for: name), markerPath = pinMarkerPath(for: name)
            let done: Void? = directoryLock.commit {
                if access(entryPath, F_OK) != 0 { try? FileIO.removeFile(atPath: markerPath) }
            }
            guard done != nil else {
                let rest = Array(names.dropFirst(index))
                deferFileOperation { self.deleteOrphanMarkers(rest) }
                return
            }
        }
    }

    /// Deletes every marker (``removeAll()``), one commit each.
    func deleteAllPinMarkers() -> Bool {
        guard let files = try? FileIO.listFiles(atPath: pinsDirectoryPath), !files.isEmpty else { return true }
        return removeFiles(files.map { (pinsDirectoryPath + "/" + $0.name, String?.none) }, operation: .removeAll)
    }

    /// The size of the regular file at `path`, or `nil` when there is none.
    static func fileSize(atPath path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, (UInt32(info.st_mode) & 0o170000) == 0o100000 else { return nil }
        return Int(clamping: info.st_size)
    }
}
