import Foundation

// Changes asked for before the index is loaded: applied to it, in order, once it is, and served
// from memory until then (read-your-writes). So storing, removing and clearing never wait for
// the index load, which lists the directory and may follow another process's changes; nor, since
// the load takes no lock and file operations run on the queue, for another process's lock.
extension DiskCache {
    /// What the changes asked for before the load did, as reads see it, and the changes
    /// themselves.
    struct BeforeLoad {
        /// An entry's state after the changes so far.
        enum Overlay {
            /// Stored: served from here.
            case stored(Entry)
            /// Its metadata replaced: the file's bytes with this metadata.
            case metadata(key: String, CachedResponseMetadata)
            /// Removed: a miss.
            case removed(key: String)
        }

        var entries: [DiskCacheEntryName: Overlay] = [:]
        /// Whether everything was removed: entries not in `entries` are misses.
        var isCleared = false
        /// The changes, in order, applied with the index's lock held once it is loaded.
        var changes: [@Sendable (inout State) -> Void] = []
        /// Raised by every change: a decision taken outside the lock on what the changes said
        /// (``DiskCache/updateMetadata(_:ifStillStored:)``) holds only while it is unchanged.
        var version: UInt64 = 0

        /// What a read of `key` (named `name`) finds here: `nil` when the changes do not
        /// decide it (read the file).
        func lookup(_ name: DiskCacheEntryName, key: String) -> Lookup? {
            switch entries[name] {
            case .stored(let entry)?:
                return entry.key == key ? .hit(entry) : .miss
            case .metadata(let storedKey, let metadata)?:
                return storedKey == key ? .unindexed(metadataOverride: metadata) : .miss
            case .removed(let removedKey)?:
                return removedKey == key || isCleared ? .miss : nil
            case nil:
                return isCleared ? .miss : nil
            }
        }
    }

    /// Runs `change` on the state now if the index is loaded; otherwise records what it does
    /// for reads (`overlay`), queues the load, and runs `change` right after the load, in
    /// order. Never waits.
    func withIndexOrLater(
        _ change: @escaping @Sendable (inout State) -> Void,
        overlay: (inout BeforeLoad) -> Void
    ) {
        withState { applyOrQueue(change, overlay: overlay, in: &$0) }
    }

    /// ``withIndexOrLater(_:overlay:)`` with the state's lock held.
    func applyOrQueue(
        _ change: @escaping @Sendable (inout State) -> Void,
        overlay: (inout BeforeLoad) -> Void,
        in state: inout State
    ) {
        if state.isIndexLoaded {
            change(&state)
            return
        }
        overlay(&state.beforeLoad)
        state.beforeLoad.changes.append(change)
        state.beforeLoad.version += 1
        requestIndexLoad(in: &state)
    }

    /// Applies the changes asked for before the load (in ``loadIndex()``, the index just
    /// installed).
    func applyChangesBeforeLoad(in state: inout State) {
        let changes = state.beforeLoad.changes
        state.beforeLoad = BeforeLoad()
        for change in changes { change(&state) }
    }
}
