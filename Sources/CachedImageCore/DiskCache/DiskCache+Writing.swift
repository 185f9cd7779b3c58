@preconcurrency import Dispatch
import Foundation

// Writing: stores, metadata updates, removals and `flush()`.
extension DiskCache {
    /// Stores `data` and its metadata under `key`, replacing any previous entry.
    ///
    /// Returns at once, never waiting for the index to load or for another process's lock; the
    /// file is written on the cache's queue, and the entry is served from memory until then.
    /// Least recently used entries are evicted so that ``totalSize`` stays within
    /// ``sizeLimit``. An entry larger than the limit on its own is not stored (and any previous
    /// entry for the key is removed). A new version of a pinned entry stays pinned while the
    /// pinned entries with it stay within `pinnedLimit` bytes; past it, the new version is stored
    /// unpinned (its marker deleted) and the refusal reported (``Error/Operation/pin``). With
    /// `pinning`, the entry is pinned within that budget and stored unpinned past it, without
    /// waiting for the index (``storePinned(_:metadata:forKey:limit:)`` waits to say which).
    package func store(
        _ data: Data, metadata: CachedResponseMetadata, forKey key: String, pinnedLimit: Int = .max, pinning: Bool = false
    ) {
        let name = nameForKey(key)
        let headerLength = Format.headerLength(keyByteCount: key.utf8.count, metadata: metadata)
        let size = headerLength + data.count
        let now = clock.now
        guard size <= sizeLimit, headerLength <= Format.maximumHeaderLength else {
            withState { state in
                let isBeforeLoad = !state.isIndexLoaded
                applyOrQueue({ state in
                    self.removeLocked(name, key: key, orFileIfUnindexed: isBeforeLoad, in: &state)
                }, overlay: { $0.entries[name] = .removed(key: key) }, in: &state)
            }
            return
        }
        withIndexOrLater({ state in
            let generation = state.makeGeneration()
            state.staged[name] = Staged(key: key, body: data, metadata: metadata, generation: generation)
            state.pendingTouches[name] = nil
            // A new version of a pinned entry stays pinned within the pinned budget.
            let previous = state.index.record(named: name)
            let otherPins = state.index.pinnedSize - (previous?.isPinned == true ? previous?.size ?? 0 : 0)
            let isPinned = (pinning || previous?.isPinned == true) && size <= pinnedLimit - otherPins
            state.index.upsert(Record(name: name, size: size, accessDate: now, key: key, generation: generation, isPinned: isPinned))
            let evicted = self.evictLocked(protecting: name, in: &state)
            if previous?.isPinned == true, !isPinned {
                self.enqueueFileOperation(in: &state) {
                    self.removePinMarker(name, key: key)
                    self.report(Error(
                        operation: .pin, key: key, path: self.pinMarkerPath(for: name),
                        underlying: Self.pinnedSizeLimitError(key: key, size: size, pinnedSize: otherPins, limit: pinnedLimit)
                    ))
                }
            }
            self.enqueueFileOperation(in: &state) { self.performWrite(name: name, generation: generation, evicting: evicted) }
            if pinning, isPinned {
                self.enqueueFileOperation(in: &state) { self.writePinMarker(name, key: key, limit: pinnedLimit) }
            }
        }) { beforeLoad in
            beforeLoad.entries[name] = .stored(Entry(key: key, data: data, metadata: metadata))
        }
    }

    /// Replaces the metadata of the entry under `key`, keeping its bytes, e.g. after an HTTP
    /// `304 Not Modified`. Does nothing if there is no such entry.
    ///
    /// Visible at once, never waiting; the header is rewritten on the cache's queue, atomically
    /// (the whole file is rewritten to a temporary file and renamed over the old one).
    package func updateMetadata(_ metadata: CachedResponseMetadata, forKey key: String) {
        withState { updateMetadataOrQueue(metadata, key: key, ifBody: nil, in: &$0) }
    }

    /// `updateMetadata(_:forKey:)` with the state's lock held; with `ifBody`, the file's
    /// rewrite is skipped unless the file still holds those bytes (another process may have
    /// stored a newer response meanwhile).
    private func updateMetadataOrQueue(_ metadata: CachedResponseMetadata, key: String, ifBody: Data?, in state: inout State) {
        let name = nameForKey(key)
        applyOrQueue({ state in
            self.updateMetadataLocked(metadata, key: key, name: name, ifBody: ifBody, in: &state)
        }, overlay: { beforeLoad in
            switch beforeLoad.entries[name] {
            case .stored(let entry)? where entry.key == key:
                beforeLoad.entries[name] = .stored(Entry(key: key, data: entry.data, metadata: metadata))
            case .metadata(let storedKey, _)? where storedKey == key:
                beforeLoad.entries[name] = .metadata(key: key, metadata)
            case nil where !beforeLoad.isCleared:
                beforeLoad.entries[name] = .metadata(key: key, metadata)
            default:
                break // removed, or another key's: nothing to update (nor will the change find it)
            }
        }, in: &state)
    }

    /// Replaces the metadata of `entry` (as `entry(forKey:)` returned it), keeping its bytes,
    /// only if it is still what is stored under its key: same bytes, same metadata. For example
    /// after a `304 Not Modified` that confirmed `entry`: when a newer response was stored (or
    /// the entry was refreshed, replaced or removed) while the request was on its way, the
    /// older 304's validators and lifetime are not written over it.
    ///
    /// Visible at once when applied, like `updateMetadata(_:forKey:)`. Compares the stored
    /// entry's bytes, which may mean reading its file.
    ///
    /// - Returns: `true` if the update was applied, `false` if the stored entry is not `entry`.
    @discardableResult
    package func updateMetadata(_ metadata: CachedResponseMetadata, ifStillStored entry: Entry) -> Bool {
        updateMetadata(metadata, ifStillStored: entry, attempts: 3)
    }

    /// ``updateMetadata(_:ifStillStored:)``, looking again (at most `attempts` times) when the
    /// index loaded, or a change was asked for before it, while the stored entry was compared.
    private func updateMetadata(_ metadata: CachedResponseMetadata, ifStillStored entry: Entry, attempts: Int) -> Bool {
        let key = entry.key
        let name = nameForKey(key)
        // The stored version (its generation changes on every store and update) and its
        // pending write, if any; compared outside the lock, then applied only if unchanged.
        // Before the index is loaded (never waited for), the changes asked for meanwhile and
        // the file decide.
        enum Stored {
            case indexed(generation: UInt64, staged: Staged?)
            case beforeLoad(Lookup?, version: UInt64)
        }
        let stored: Stored? = withState { state in
            guard state.isIndexLoaded else {
                return .beforeLoad(state.beforeLoad.lookup(name, key: key), version: state.beforeLoad.version)
            }
            guard let record = state.index.record(named: name), record.key == nil || record.key == key else { return nil }
            if let staged = state.staged[name], staged.key != key { return nil }
            return .indexed(generation: record.generation, staged: state.staged[name])
        }
        let current: Entry?
        let pendingMetadata: CachedResponseMetadata?
        switch stored {
        case nil, .beforeLoad(.miss?, _):
            return false
        case .beforeLoad(.hit(let overlaid)?, _):
            current = overlaid
            pendingMetadata = nil
        case .beforeLoad(let lookup, _):
            if case .unindexed(let override)? = lookup { pendingMetadata = override } else { pendingMetadata = nil }
            current = readForComparison(name, key: key, metadataOverride: pendingMetadata)
        case .indexed(_, let staged):
            if let staged, let body = staged.body {
                current = Entry(key: key, data: body, metadata: staged.metadata)
                pendingMetadata = nil
            } else {
                pendingMetadata = staged?.metadata
                current = readForComparison(name, key: key, metadataOverride: pendingMetadata)
            }
        }
        guard current == entry else { return false }
        guard case .indexed(let generation, _) = stored else {
            guard case .beforeLoad(_, let version) = stored else { return false }
            // Applied (or queued) in the same lock as the check that no change came since the
            // comparison (a newer store would get this older response's validators).
            let isApplied: Bool? = withState { state in
                guard !state.isIndexLoaded, state.beforeLoad.version == version else { return nil }
                updateMetadataOrQueue(metadata, key: key, ifBody: entry.data, in: &state)
                return true
            }
            if let isApplied { return isApplied }
            return attempts > 1 && updateMetadata(metadata, ifStillStored: entry, attempts: attempts - 1)
        }
        return withState { state in
            guard state.index.record(named: name)?.generation == generation else { return false }
            updateMetadataLocked(metadata, key: key, name: name, ifBody: entry.data, in: &state)
            return true
        }
    }

    /// The entry file's bytes with `metadataOverride` (a pending update's), or `nil`.
    private func readForComparison(_ name: DiskCacheEntryName, key: String, metadataOverride: CachedResponseMetadata?) -> Entry? {
        guard case .hit(let body, let metadata, _) = readEntryFile(path(for: name), key, sizeLimit) else { return nil }
        return Entry(key: key, data: body, metadata: metadataOverride ?? metadata)
    }

    /// `updateMetadata(_:forKey:)` with the lock held (with `ifBody`: only over those bytes).
    func updateMetadataLocked(
        _ metadata: CachedResponseMetadata, key: String, name: DiskCacheEntryName, ifBody: Data? = nil, in state: inout State
    ) {
        guard let record = state.index.record(named: name), record.key == nil || record.key == key else { return }
        if let existing = state.staged[name], existing.key != key { return }
        let generation = state.makeGeneration()
        var staged = state.staged[name] ?? Staged(key: key, body: nil, metadata: metadata, generation: generation)
        staged.metadata = metadata
        staged.generation = generation
        staged.expectedBody = ifBody
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

    /// Removes the entry under `key`, if any, pinned or not (its pin goes too). Returns at once,
    /// never waiting; a read misses from now on, and its file is deleted on the cache's queue.
    public func removeEntry(forKey key: String) {
        let name = nameForKey(key)
        withState { state in
            let isBeforeLoad = !state.isIndexLoaded
            applyOrQueue({ state in
                if let record = state.index.record(named: name), record.key != nil, record.key != key { return }
                self.removeLocked(name, key: key, orFileIfUnindexed: isBeforeLoad, in: &state)
            }, overlay: { beforeLoad in
                if case .stored(let entry)? = beforeLoad.entries[name], entry.key != key { return }
                beforeLoad.entries[name] = .removed(key: key)
            }, in: &state)
        }
    }

    /// Removes every entry, pinned ones and their pins included. Returns at once, never
    /// waiting; reads miss from now on, and the files are deleted on the cache's queue.
    public func removeAll() {
        withIndexOrLater({ state in
            state.index.removeAll()
            state.staged.removeAll()
            state.pendingTouches.removeAll()
            self.enqueueFileOperation(in: &state) { self.deleteAllFiles() }
        }) { beforeLoad in
            beforeLoad.entries.removeAll()
            beforeLoad.isCleared = true
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
        // The load first: it queues the changes asked for before it (after this call's own
        // job, were the two queued together).
        queue.sync {}
        queue.sync {
            persistTouches()
            writeSnapshotIfNeeded()
        }
    }
}
