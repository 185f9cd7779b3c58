@preconcurrency import Dispatch
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

// Reading: entries, their presence, the totals and the list of entries.
extension DiskCache {
    /// The size of the entry file for `key`, header included, from one `stat` (no read); `nil`
    /// when there is none (or its write is still pending). What the first frame checks before
    /// it reads an entry synchronously.
    func entryFileSize(forKey key: String) -> Int? {
        var info = stat()
        guard stat(path(for: nameForKey(key)), &info) == 0 else { return nil }
        return Int(clamping: info.st_size) // `off_t` is 64 bits; `Int` may be 32 (watchOS).
    }

    enum Lookup {
        /// The index is still loading: read the file, which verifies itself (with the metadata
        /// of an update asked for meanwhile, if any).
        case unindexed(metadataOverride: CachedResponseMetadata?)
        case miss
        /// The index does not know the entry: another process may have stored it since.
        case unknown(epoch: UInt64)
        case hit(Entry)
        case disk(generation: UInt64, metadataOverride: CachedResponseMetadata?)
    }

    /// The entry stored under `key`, fully verified, or `nil`.
    ///
    /// Marks the entry as the most recently used. Serves entries whose write is still pending
    /// from memory. A file that fails verification is a miss and is deleted.
    package func entry(forKey key: String) -> Entry? {
        let name = nameForKey(key)
        let now = clock.now
        let lookup: Lookup = withState { state in
            guard state.isIndexLoaded else {
                // What was stored or removed meanwhile first (read-your-writes).
                if let overlaid = state.beforeLoad.lookup(name, key: key) { return overlaid }
                state.readsBeforeLoad.append((name, now))
                if state.readsBeforeLoad.count >= Self.readsBeforeLoadLimit { requestIndexLoad(in: &state) }
                return .unindexed(metadataOverride: nil)
            }
            if !state.deferredFileOperations.isEmpty, state.lastResumeProbe.map({ now.timeIntervalSince($0) >= 1 }) ?? true {
                // Changes wait for an assertion: a read asks again, at most once a second.
                state.lastResumeProbe = now
                queue.async { self.probeDeferredOperations() }
            }
            guard let record = state.index.record(named: name) else {
                // With a change of this process queued, the file may be one it let go.
                return state.queuedFileOperations == 0 ? .unknown(epoch: state.fileOperationEpoch) : .miss
            }
            guard record.key == nil || record.key == key else { return .miss }
            if let staged = state.staged[name] {
                guard staged.key == key else { return .miss }
                if let body = staged.body {
                    state.index.touch(name, at: now)
                    scheduleSnapshot(in: &state)
                    return .hit(Entry(key: key, data: body, metadata: staged.metadata))
                }
                return .disk(generation: record.generation, metadataOverride: staged.metadata)
            }
            return .disk(generation: record.generation, metadataOverride: nil)
        }

        let generation: UInt64
        let metadataOverride: CachedResponseMetadata?
        switch lookup {
        case .unindexed(let override):
            return readUnindexed(name, key: key, metadataOverride: override)
        case .miss:
            return nil
        case .unknown(let epoch):
            return readUnknownEntry(name, key: key, epoch: epoch, at: now)
        case .hit(let entry):
            return entry
        case .disk(let diskGeneration, let override):
            generation = diskGeneration
            metadataOverride = override
        }

        // A metadata update was pending at the lookup: its write may replace the file while it
        // is read, so the size found is not necessarily the file's on disk by then.
        let wasWritePending = metadataOverride != nil
        switch readEntryFile(path(for: name), key, sizeLimit) {
        case .hit(let body, let metadata, let fileSize):
            let isStillCurrent = withState { state in
                guard state.index.record(named: name)?.generation == generation else { return false }
                state.index.modify(name) { $0.key = key }
                state.index.touch(name, at: now)
                if state.staged[name] == nil {
                    schedulePersistedTouch(name, at: now, in: &state)
                    if !wasWritePending { correctSize(of: name, to: fileSize, in: &state) }
                }
                scheduleSnapshot(in: &state)
                return true
            }
            // Stored again since the lookup: the override was the older version's; the file's
            // bytes and metadata belong together.
            return Entry(key: key, data: body, metadata: isStillCurrent ? metadataOverride ?? metadata : metadata)
        case .keyMismatch(let fileSize):
            withState { state in
                guard !wasWritePending, state.index.record(named: name)?.generation == generation, state.staged[name] == nil
                else { return }
                correctSize(of: name, to: fileSize, in: &state)
            }
            return nil
        case .notFound:
            forget(name, generation: generation, deletingFile: false)
            return nil
        case .corrupt:
            forget(name, generation: generation, deletingFile: true)
            return nil
        }
    }

    /// The metadata of the entry stored under `key`, from the file's header alone: the body is
    /// neither read nor verified (the read that needs it finds a corrupt one). What this process
    /// stored or updated and has not written yet first. Not a use (``touch(forKey:)`` is);
    /// `nil` when there is no entry. For decisions about an entry, such as whether a prefetch
    /// needs to download it.
    package func metadata(forKey key: String) -> CachedResponseMetadata? {
        enum Source {
            case memory(CachedResponseMetadata?)
            /// The file's header, with the metadata of an update not written yet if any.
            case file(override: CachedResponseMetadata?)
        }
        let name = nameForKey(key)
        let source: Source = withState { state in
            guard state.isIndexLoaded else {
                switch state.beforeLoad.lookup(name, key: key) {
                case .hit(let entry)?: return .memory(entry.metadata)
                case .unindexed(let override)?: return .file(override: override)
                case .miss?: return .memory(nil)
                default: return .file(override: nil)
                }
            }
            if let staged = state.staged[name] {
                guard staged.key == key else { return .memory(nil) }
                return staged.body != nil ? .memory(staged.metadata) : .file(override: staged.metadata)
            }
            if let record = state.index.record(named: name) { return record.key == nil || record.key == key ? .file(override: nil) : .memory(nil) }
            // Unknown: another process may have stored it (unless this one is changing files).
            return state.queuedFileOperations == 0 ? .file(override: nil) : .memory(nil)
        }
        switch source {
        case .memory(let metadata):
            return metadata
        case .file(let override):
            // The file must hold this key's entry, even under an update not written yet.
            guard case .header(let fileKey, _, let metadata) = FileIO.readHeader(atPath: path(for: name)), fileKey == key else { return nil }
            return override ?? metadata
        }
    }

    /// Marks the entry stored under `key` as used now, as reading it does, without reading it:
    /// eviction by size keeps the most recently used entries.
    package func touch(forKey key: String) {
        let name = nameForKey(key)
        let now = clock.now
        withState { state in
            guard state.isIndexLoaded else {
                // Applied when the index loads, as a read's.
                state.readsBeforeLoad.append((name, now))
                if state.readsBeforeLoad.count >= Self.readsBeforeLoadLimit { requestIndexLoad(in: &state) }
                return
            }
            guard let record = state.index.record(named: name), record.key == nil || record.key == key else { return }
            state.index.touch(name, at: now)
            if state.staged[name] == nil { schedulePersistedTouch(name, at: now, in: &state) }
            scheduleSnapshot(in: &state)
        }
    }

    /// Whether an entry is stored under `key`. Reads no entry and does not count as a use; before
    /// the index is loaded (or when the index does not know the key, which another process may
    /// have stored) it looks for the entry's file instead. Can be `true` for
    /// an entry that then turns out to be corrupt (a later read misses).
    public func containsEntry(forKey key: String) -> Bool {
        let name = nameForKey(key)
        let indexed: Bool? = withState { state in
            guard state.isIndexLoaded else {
                switch state.beforeLoad.lookup(name, key: key) {
                case .hit?: return true
                case .miss?: return false
                default: return nil
                }
            }
            // Unknown: another process may have stored it (unless this one is changing files).
            guard let record = state.index.record(named: name) else { return state.queuedFileOperations == 0 ? nil : false }
            return record.key == nil || record.key == key
        }
        return indexed ?? FileIO.mayHoldEntry(atPath: path(for: name))
    }

    /// The sum of the sizes of all entry files (headers included), in bytes, pinned ones included.
    public var totalSize: Int {
        withIndex { $0.index.totalSize }
    }

    /// The number of entries.
    public var entryCount: Int {
        withIndex { $0.index.count }
    }

    /// Every entry's key, byte count, metadata and last access date, most recently used first.
    ///
    /// Reads each file's header but not its bytes; meant for diagnostics, not hot paths.
    /// Entries whose header is corrupt are left out and deleted.
    package func allEntries() -> [EntryInfo] {
        let (records, staged) = withIndex { ($0.index.recordsByRecency(), $0.staged) }
        var infos: [EntryInfo] = []
        infos.reserveCapacity(records.count)
        for record in records.reversed() {
            let pending = staged[record.name]
            if let pending, let body = pending.body {
                infos.append(EntryInfo(
                    key: pending.key, byteCount: body.count, metadata: pending.metadata,
                    lastAccessDate: record.accessDate
                ))
                continue
            }
            switch FileIO.readHeader(atPath: path(for: record.name)) {
            case .header(let key, let byteCount, let metadata):
                infos.append(EntryInfo(
                    key: key, byteCount: byteCount, metadata: pending?.metadata ?? metadata,
                    lastAccessDate: record.accessDate
                ))
            case .notFound:
                forget(record.name, generation: record.generation, deletingFile: false)
            case .corrupt:
                forget(record.name, generation: record.generation, deletingFile: true)
            }
        }
        return infos
    }
}
