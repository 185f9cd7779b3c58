import Foundation

/// The HTTP response behind each decoded image in the memory cache, so that a memory hit can
/// present it (``ImageResponse/httpResponse``) with its current `Age`.
///
/// Kept beside the memory cache rather than in it: the memory-hit lookup stays one lock and no
/// allocation, and this record is read only when a task completes from memory, never by the
/// synchronous first-frame probe. Bounded to ``capacity`` records; the oldest half is dropped
/// when it is full (a hit whose record is gone has no `httpResponse`).
final class MemoryResponseRecords: Sendable {
    private struct State {
        var records: [ImageCacheKey: CachedResponseMetadata] = [:]
        var order: [ImageCacheKey] = []
    }

    private let state = Locked(State())
    /// How many records are kept at most.
    let capacity: Int

    init(capacity: Int = 4_096) {
        self.capacity = max(capacity, 2)
    }

    /// Records `metadata` (its response) for the image kept under `key`; removes the record
    /// when there is no response to present.
    func set(_ metadata: CachedResponseMetadata?, forKey key: ImageCacheKey) {
        guard let metadata, metadata.response != nil else {
            remove(key)
            return
        }
        state.withLock { state in
            if state.records.updateValue(metadata, forKey: key) == nil {
                state.order.append(key)
                if state.order.count > capacity {
                    let dropped = state.order.prefix(capacity / 2)
                    for old in dropped { state.records[old] = nil }
                    state.order.removeFirst(dropped.count)
                }
            }
        }
    }

    /// Forgets the record of `key`.
    func remove(_ key: ImageCacheKey) {
        state.withLock { state in
            if state.records.removeValue(forKey: key) != nil {
                state.order.removeAll { $0 == key }
            }
        }
    }

    /// Forgets every record.
    func removeAll() {
        state.withLock { $0 = State() }
    }

    /// The response recorded for `key`, with its `Age` at `now`.
    func response(forKey key: ImageCacheKey, at now: Date) -> CachedHTTPResponse? {
        guard let metadata = state.withLock({ $0.records[key] }) else { return nil }
        return metadata.response?.withAge(metadata.currentAge(at: now))
    }
}
