import Foundation

/// The bytes of downloads that stopped before their end, in memory, keyed by cache key, within a
/// byte budget (``ImagePipeline/Configuration/resumableDownloadBudget``): the least recently used
/// are dropped first, and a download larger than the whole budget is not kept. Thread-safe.
final class PartialDownloadStore: Sendable {
    private struct Slot {
        var partial: PartialDownload
        var lastUse: UInt64
    }

    private struct State {
        var slots: [String: Slot] = [:]
        var totalBytes = 0
        var clock: UInt64 = 0

        mutating func tick() -> UInt64 {
            clock &+= 1
            return clock
        }
    }

    /// The most bytes kept in all.
    let budget: Int
    private let state = Locked(State())

    init(budget: Int) {
        self.budget = max(0, budget)
    }

    /// The bytes kept, in all.
    var totalBytes: Int { state.withLock { $0.totalBytes } }

    /// How many downloads have bytes kept.
    var count: Int { state.withLock { $0.slots.count } }

    /// The bytes kept for `key` when they were received from `url`; marks them recently used.
    func partial(forKey key: String, url: URL) -> PartialDownload? {
        state.withLock { state in
            guard var slot = state.slots[key], slot.partial.url == url else { return nil }
            slot.lastUse = state.tick()
            state.slots[key] = slot
            return slot.partial
        }
    }

    /// Keeps `partial` for `key` in place of what was kept, dropping the least recently used
    /// others until all fit in the budget. Bytes that are not resumable, or larger than the
    /// budget, only remove what was kept.
    func keep(_ partial: PartialDownload, forKey key: String) {
        let dropped: [PartialDownload] = state.withLock { state in
            var dropped: [PartialDownload] = []
            if let old = state.slots.removeValue(forKey: key) {
                state.totalBytes -= old.partial.data.count
                dropped.append(old.partial)
            }
            guard partial.isResumable, partial.data.count <= budget else { return dropped }
            while state.totalBytes + partial.data.count > budget,
                  let oldest = state.slots.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.slots[oldest.key] = nil
                state.totalBytes -= oldest.value.partial.data.count
                dropped.append(oldest.value.partial)
            }
            state.slots[key] = Slot(partial: partial, lastUse: state.tick())
            state.totalBytes += partial.data.count
            return dropped
        }
        // The dropped bytes are released here, after the lock.
        _ = dropped
    }

    /// Forgets the bytes kept for `key`.
    func remove(forKey key: String) {
        let old = state.withLock { state -> Slot? in
            guard let old = state.slots.removeValue(forKey: key) else { return nil }
            state.totalBytes -= old.partial.data.count
            return old
        }
        _ = old
    }

    /// Forgets every download's bytes.
    func removeAll() {
        let old = state.withLock { state -> [String: Slot] in
            defer {
                state.slots = [:]
                state.totalBytes = 0
            }
            return state.slots
        }
        _ = old
    }
}
