@preconcurrency import Dispatch
import Foundation

// Writing: stores, metadata updates, removals and `flush()`.
extension DiskCache {
    /// Stores `data` and its metadata under `key`, replacing any previous entry.
    ///
    /// Returns at once; the file is written on the cache's queue, and the entry is served from
    /// memory until then. Least recently used entries are evicted so that ``totalSize`` stays
    /// within ``sizeLimit``. An entry larger than the limit on its own is not stored (and any
    /// previous entry for the key is removed).
    package func store(_ data: Data, metadata: CachedResponseMetadata, forKey key: String) {
        let name = nameForKey(key)
        let headerLength = Format.headerLength(keyByteCount: key.utf8.count, metadata: metadata)
        let size = headerLength + data.count
        let now = clock.now
        withIndex { state in
            guard size <= sizeLimit, headerLength <= Format.maximumHeaderLength else {
                removeLocked(name, key: key, in: &state)
                return
            }
            let generation = state.makeGeneration()
            state.staged[name] = Staged(key: key, body: data, metadata: metadata, generation: generation)
            state.pendingTouches[name] = nil
            state.index.upsert(Record(name: name, size: size, accessDate: now, key: key, generation: generation))
            let evicted = evictLocked(protecting: name, in: &state)
            enqueueFileOperation(in: &state) { self.performWrite(name: name, generation: generation, evicting: evicted) }
        }
    }

    /// Replaces the metadata of the entry under `key`, keeping its bytes, e.g. after an HTTP
    /// `304 Not Modified`. Does nothing if there is no such entry.
    ///
    /// Visible at once; the header is rewritten on the cache's queue, atomically (the whole file
    /// is rewritten to a temporary file and renamed over the old one).
    package func updateMetadata(_ metadata: CachedResponseMetadata, forKey key: String) {
        let name = nameForKey(key)
        withIndex { state in
            updateMetadataLocked(metadata, key: key, name: name, in: &state)
        }
    }

    /// Replaces the metadata of `entry` (as ``entry(forKey:)`` returned it), keeping its bytes,
    /// only if it is still what is stored under its key: same bytes, same metadata. For example
    /// after a `304 Not Modified` that confirmed `entry`: when a newer response was stored (or
    /// the entry was refreshed, replaced or removed) while the request was on its way, the
    /// older 304's validators and lifetime are not written over it.
    ///
    /// Visible at once when applied, like ``updateMetadata(_:forKey:)``. Compares the stored
    /// entry's bytes, which may mean reading its file.
    ///
    /// - Returns: `true` if the update was applied, `false` if the stored entry is not `entry`.
    @discardableResult
    package func updateMetadata(_ metadata: CachedResponseMetadata, ifStillStored entry: Entry) -> Bool {
        let key = entry.key
        let name = nameForKey(key)
        // The stored version (its generation changes on every store and update) and its
        // pending write, if any; compared outside the lock, then applied only if unchanged.
        let stored: (generation: UInt64, staged: Staged?)? = withIndex { state in
            guard let record = state.index.record(named: name), record.key == nil || record.key == key else { return nil }
            if let staged = state.staged[name], staged.key != key { return nil }
            return (record.generation, state.staged[name])
        }
        guard let stored else { return false }
        let current: Entry?
        if let staged = stored.staged, let body = staged.body {
            current = Entry(key: key, data: body, metadata: staged.metadata)
        } else if case .hit(let body, let metadata, _) = readEntryFile(path(for: name), key, sizeLimit) {
            current = Entry(key: key, data: body, metadata: stored.staged?.metadata ?? metadata)
        } else {
            current = nil
        }
        guard current == entry else { return false }
        return withState { state in
            guard state.index.record(named: name)?.generation == stored.generation else { return false }
            updateMetadataLocked(metadata, key: key, name: name, in: &state)
            return true
        }
    }

    /// ``updateMetadata(_:forKey:)`` with the lock held.
    func updateMetadataLocked(_ metadata: CachedResponseMetadata, key: String, name: DiskCacheEntryName, in state: inout State) {
        guard let record = state.index.record(named: name), record.key == nil || record.key == key else { return }
        if let existing = state.staged[name], existing.key != key { return }
        let generation = state.makeGeneration()
        var staged = state.staged[name] ?? Staged(key: key, body: nil, metadata: metadata, generation: generation)
        staged.metadata = metadata
        staged.generation = generation
        state.staged[name] = staged
        state.index.modify(name) { $0.generation = generation }
        var evictedRecords: [Record] = []
        if let body = staged.body {
            let headerLength = Format.headerLength(keyByteCount: key.utf8.count, metadata: metadata)
            let size = headerLength + body.count
            guard size <= sizeLimit, headerLength <= Format.maximumHeaderLength else {
                removeLocked(name, key: key, in: &state)
                return
            }
            state.index.modify(name) { $0.size = size }
            evictedRecords = evictLocked(protecting: name, in: &state)
        }
        let evicted = evictedRecords
        enqueueFileOperation(in: &state) { self.performWrite(name: name, generation: generation, evicting: evicted) }
    }

    /// Removes the entry under `key`, if any. Its file is deleted on the cache's queue.
    public func removeEntry(forKey key: String) {
        let name = nameForKey(key)
        withIndex { state in
            guard let record = state.index.record(named: name), record.key == nil || record.key == key else { return }
            removeLocked(name, key: key, in: &state)
        }
    }

    /// Removes every entry. Files are deleted on the cache's queue.
    public func removeAll() {
        withIndex { state in
            state.index.removeAll()
            state.staged.removeAll()
            state.pendingTouches.removeAll()
            enqueueFileOperation(in: &state) { self.deleteAllFiles() }
        }
    }

    /// Blocks until every write, update and removal requested so far is on disk, persists the
    /// access order of recent reads (otherwise written in batches about once a second), and
    /// writes the index snapshot that makes the next open fast (otherwise written a few seconds
    /// after changes settle).
    ///
    /// Call it before the app is suspended (on iOS, tvOS and visionOS the `CachedImage` module's
    /// `AppLifecycleObserver` does, for every pipeline its views use), or in tests. Must not be
    /// called from the `errorHandler`.
    public func flush() {
        let dependencies = flushDependencies.withLock { $0 }
        if !dependencies.allSatisfy({ $0() }) {
            flushDependencies.withLock { $0 = $0.filter { $0() } }
        }
        withState { requestIndexLoad(in: &$0) }
        queue.sync {
            persistTouches()
            writeSnapshotIfNeeded()
        }
    }
}
