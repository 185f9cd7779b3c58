/// A bounded memory of the key hashes recently evicted from the small queue.
///
/// A direct-mapped table indexed by the low bits of the hash; each slot keeps the full hash
/// and the sequence number of its insertion. A ghost is alive while fewer than `limit`
/// insertions happened after it, so the oldest ghosts expire without any bookkeeping. Two
/// ghosts landing in the same slot keep only the newer one (the table is 4x the limit, so
/// that is rare). Everything is O(1) and hashes nothing: callers pass `Hashable.hashValue`.
@usableFromInline
struct MemoryCacheGhosts {
    @inlinable
    init() {}

    @usableFromInline
    struct Slot {
        @usableFromInline var hash: Int
        /// 0 marks an empty slot.
        @usableFromInline var sequence: UInt64

        @inlinable
        init(hash: Int, sequence: UInt64) {
            self.hash = hash
            self.sequence = sequence
        }
    }

    @usableFromInline var table: [Slot] = []
    @usableFromInline var mask = 0
    @usableFromInline var nextSequence: UInt64 = 1
    @usableFromInline var limit = 0

    /// Remembers `hash` as the newest ghost; only the newest `limit` ghosts are alive.
    @inlinable
    mutating func insert(_ hash: Int, limit: Int) {
        guard limit > 0 else { return }
        self.limit = limit
        if table.count < limit * 4 {
            resize(minimumCount: limit * 4)
        }
        table[hash & mask] = Slot(hash: hash, sequence: nextSequence)
        nextSequence &+= 1
    }

    /// Ages every ghost by one insertion without remembering anything, so the ghosts can
    /// expire by the number of cache misses rather than by the number of evictions.
    @inlinable
    mutating func age() {
        nextSequence &+= 1
    }

    /// Forgets `hash`; returns whether it was an alive ghost.
    @inlinable
    mutating func remove(_ hash: Int) -> Bool {
        guard contains(hash) else { return false }
        table[hash & mask].sequence = 0
        return true
    }

    /// Forgets `hash`; returns the insertion sequence number it had as an alive ghost, or 0
    /// when it was none. Consecutive hits on consecutive sequence numbers reveal a scan.
    @inlinable
    mutating func removeReturningSequence(_ hash: Int) -> UInt64 {
        guard contains(hash) else { return 0 }
        let sequence = table[hash & mask].sequence
        table[hash & mask].sequence = 0
        return sequence
    }

    @inlinable
    func contains(_ hash: Int) -> Bool {
        guard !table.isEmpty else { return false }
        let slot = table[hash & mask]
        return slot.hash == hash && isAlive(slot.sequence)
    }

    @inlinable
    mutating func removeAll() {
        table = []
        mask = 0
        limit = 0
    }

    @inlinable
    func isAlive(_ sequence: UInt64) -> Bool {
        sequence != 0 && nextSequence &- sequence <= UInt64(limit)
    }

    @inlinable
    mutating func resize(minimumCount: Int) {
        var count = 16
        while count < minimumCount {
            count *= 2
        }
        let alive = table.filter { isAlive($0.sequence) }.sorted { $0.sequence < $1.sequence }
        table = Array(repeating: Slot(hash: 0, sequence: 0), count: count)
        mask = count - 1
        for slot in alive {
            table[slot.hash & mask] = slot
        }
    }
}
