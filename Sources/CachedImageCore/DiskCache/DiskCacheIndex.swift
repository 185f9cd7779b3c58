import Foundation

/// The in-memory index of a ``DiskCache``: one record per entry file, kept in least-recently-used
/// order in an array-backed doubly linked list, so lookups, touches, inserts and evictions are
/// all O(1) and the size total is always exact. Not thread-safe: the cache guards it with a lock.
struct DiskCacheIndex {
    /// What the cache knows about one entry file without reading it.
    struct Record: Equatable {
        /// The file's name (the key's hash).
        var name: DiskCacheEntryName
        /// The file size in bytes, header included.
        var size: Int
        /// The last time the entry was stored or read.
        var accessDate: Date
        /// The full key, once known (after a store or a successful read); `nil` for entries
        /// found on disk at open.
        var key: String?
        /// Changes on every store or metadata update, so work started on an older version of the
        /// file can tell it is stale.
        var generation: UInt64
        /// Whether the entry is pinned (its marker file is in the pins' directory): eviction
        /// passes over it, and it counts against the pinned budget, not the size limit.
        var isPinned = false
    }

    private struct Slot {
        var record: Record?
        var older = -1
        var newer = -1
    }

    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var positions: [DiskCacheEntryName: Int] = [:]
    private var oldest = -1
    private var newest = -1

    /// The sum of all records' sizes.
    private(set) var totalSize = 0
    /// The sum of the pinned records' sizes (part of ``totalSize``).
    private(set) var pinnedSize = 0
    /// What eviction bounds: the sizes of the records that are not pinned.
    var evictableSize: Int { totalSize - pinnedSize }

    /// The number of records.
    var count: Int { positions.count }

    init() {}

    /// The most the sizes of records read from outside (a listing, a snapshot) may add up to.
    /// Another process can put files of any declared size in the directory (sparse files of
    /// 2^62 bytes cost nothing); half of `Int.max` leaves room for every size a write adds, so
    /// ``totalSize`` never overflows.
    static let maximumTotalSize = Int.max / 2

    /// Whether a record of `size` bytes read from outside fits on top of `total` within
    /// ``maximumTotalSize``.
    static func fits(_ size: Int, onTop total: Int) -> Bool {
        size >= 0 && total >= 0 && size <= maximumTotalSize - total
    }

    /// An index of `records`, given least recently used first (as ``recordsByRecency()`` returns
    /// them), or `nil` if two records have the same name or their sizes add up to more than
    /// ``maximumTotalSize``.
    init?(recordsByRecency records: [Record]) {
        slots.reserveCapacity(records.count)
        positions.reserveCapacity(records.count)
        // One hash per record: opening from a snapshot is mostly this loop.
        for record in records {
            guard Self.fits(record.size, onTop: totalSize),
                  positions.updateValue(slots.count, forKey: record.name) == nil
            else { return nil }
            slots.append(Slot(record: record))
            totalSize += record.size
            if record.isPinned { pinnedSize += record.size }
            link(slots.count - 1)
        }
    }

    func record(named name: DiskCacheEntryName) -> Record? {
        guard let position = positions[name] else { return nil }
        return slots[position].record
    }

    /// Inserts or replaces the record with `record.name` and makes it the most recently used,
    /// pinned as `record` says (whether a new version keeps its entry's pin is the caller's
    /// decision: ``DiskCache/store(_:metadata:forKey:pinnedLimit:)``).
    mutating func upsert(_ record: Record) {
        if let position = positions[record.name] {
            let old = slots[position].record
            totalSize += record.size - (old?.size ?? 0)
            pinnedSize += (record.isPinned ? record.size : 0) - (old?.isPinned == true ? old?.size ?? 0 : 0)
            slots[position].record = record
            moveToNewest(position)
            return
        }
        let position: Int
        if let free = freeSlots.popLast() {
            position = free
            slots[position] = Slot(record: record)
        } else {
            position = slots.count
            slots.append(Slot(record: record))
        }
        positions[record.name] = position
        totalSize += record.size
        if record.isPinned { pinnedSize += record.size }
        link(position)
    }

    /// Marks the record as used at `date`, making it the most recently used.
    mutating func touch(_ name: DiskCacheEntryName, at date: Date) {
        guard let position = positions[name] else { return }
        slots[position].record?.accessDate = date
        moveToNewest(position)
    }

    /// Changes a record in place without changing its recency. The name must not change.
    mutating func modify(_ name: DiskCacheEntryName, _ body: (inout Record) -> Void) {
        guard let position = positions[name], var record = slots[position].record else { return }
        let (oldSize, wasPinned) = (record.size, record.isPinned)
        body(&record)
        totalSize += record.size - oldSize
        pinnedSize += (record.isPinned ? record.size : 0) - (wasPinned ? oldSize : 0)
        slots[position].record = record
    }

    @discardableResult
    mutating func remove(_ name: DiskCacheEntryName) -> Record? {
        guard let position = positions.removeValue(forKey: name) else { return nil }
        unlink(position)
        let record = slots[position].record
        slots[position] = Slot()
        freeSlots.append(position)
        totalSize -= record?.size ?? 0
        if record?.isPinned == true { pinnedSize -= record?.size ?? 0 }
        return record
    }

    mutating func removeAll() {
        self = DiskCacheIndex()
    }

    /// Removes least recently used records until the records that are not pinned add up to at
    /// most `limit`, never removing `protected` or a pinned record. Returns what was removed,
    /// oldest first.
    mutating func evict(toFit limit: Int, protecting protected: DiskCacheEntryName? = nil) -> [Record] {
        var evicted: [Record] = []
        var position = oldest
        while evictableSize > limit, position >= 0 {
            let next = slots[position].newer
            if let record = slots[position].record, record.name != protected, !record.isPinned {
                remove(record.name)
                evicted.append(record)
            }
            position = next
        }
        return evicted
    }

    /// All records, least recently used first.
    func recordsByRecency() -> [Record] {
        var records: [Record] = []
        records.reserveCapacity(count)
        var position = oldest
        while position >= 0 {
            if let record = slots[position].record { records.append(record) }
            position = slots[position].newer
        }
        return records
    }

    // MARK: List maintenance

    private mutating func moveToNewest(_ position: Int) {
        guard position != newest else { return }
        unlink(position)
        link(position)
    }

    /// Appends the slot at the newest end.
    private mutating func link(_ position: Int) {
        slots[position].older = newest
        slots[position].newer = -1
        if newest >= 0 { slots[newest].newer = position } else { oldest = position }
        newest = position
    }

    private mutating func unlink(_ position: Int) {
        let older = slots[position].older
        let newer = slots[position].newer
        if older >= 0 { slots[older].newer = newer } else { oldest = newer }
        if newer >= 0 { slots[newer].older = older } else { newest = older }
        slots[position].older = -1
        slots[position].newer = -1
    }
}
