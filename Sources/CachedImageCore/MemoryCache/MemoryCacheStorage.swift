import Foundation

/// The S3-FIFO bookkeeping behind ``MemoryCache``, adapted to cost and count limits.
///
/// * New keys enter the **small** FIFO. When the small queue holds more than its share of the
///   budget (``smallShare`` of the cost or count limit, adaptive), eviction takes its head:
///   an entry that was read while waiting is promoted to **main**, one that was not is dropped and
///   its key hash is remembered as a **ghost** (``MemoryCacheGhosts``, bounded to
///   ``MemoryCacheTuning/ghostRatio`` of the entry count).
/// * A key that comes back while still a ghost is inserted straight into main.
/// * The small queue's share adapts between ``MemoryCacheTuning/smallRatio`` and
///   ``MemoryCacheTuning/maximumSmallRatio`` (``adapt(growingSmall:)``): small-queue ghosts
///   returning in eviction order (a scan coming back) grow it; keys evicted from main returning
///   while remembered in ``mainGhosts`` shrink it.
/// * Main is a FIFO with lazy reinsertion (CLOCK): its head is re-appended with a decremented
///   counter while the counter is non-zero, otherwise evicted.
/// * A hit only bumps a saturating counter; nothing is relinked. Every operation is amortised O(1).
///
/// Not thread-safe: ``MemoryCache`` keeps it behind a lock. Entries live in three parallel
/// arrays with a shared free list: `nodes` (links, cost, counter; not generic, so it stays fast
/// even where this type is not specialised), `keys` and `values`. Links are `Int32` indices.
@usableFromInline
struct MemoryCacheStorage<Key: Hashable, Value> {
    @usableFromInline typealias Node = MemoryCacheNode
    @inlinable static var none: Int32 { MemoryCacheQueue.none }

    @usableFromInline var nodes: [Node] = []
    @usableFromInline var keys: [Key?] = []
    @usableFromInline var values: [Value?] = []
    @usableFromInline var freeHead: Int32 = MemoryCacheQueue.none
    @usableFromInline var slots: [Key: Int32] = [:]
    @usableFromInline var small = MemoryCacheQueue()
    @usableFromInline var main = MemoryCacheQueue()
    @usableFromInline var ghosts = MemoryCacheGhosts()
    /// Hashes of keys recently evicted from main; a hit here shrinks the small queue's share.
    @usableFromInline var mainGhosts = MemoryCacheGhosts()
    @usableFromInline let tuning: MemoryCacheTuning
    /// Values that left the cache during the current operation (evicted, replaced, expired,
    /// cleared). ``MemoryCache`` takes them in `withStorage(_:)` and releases them after
    /// unlocking: the last reference to a decoded image frees its bitmap, which can take long
    /// enough (megabytes returned to the system) that no thread should wait on the lock for it.
    @usableFromInline var dropped = MemoryCacheDropped<Value>()

    @usableFromInline var costLimit: Int
    /// The share of ``costLimit`` one entry may take (``MemoryCache/maximumEntryCostShare``).
    @usableFromInline var maximumEntryCostShare: Double = 1
    @usableFromInline var countLimit: Int
    @usableFromInline var smallCostTarget = 0
    @usableFromInline var smallCountTarget = 0
    /// The small queue's current share of the budget, between ``MemoryCacheTuning/smallRatio``
    /// and ``MemoryCacheTuning/maximumSmallRatio`` (see ``adapt(growingSmall:)``).
    @usableFromInline var smallShare: Double
    /// Sequence number of the last small-queue ghost hit (see ``admissionQueue(forNewKeyWithHash:)``).
    @usableFromInline var lastGhostHit: UInt64 = 0

    init(costLimit: Int, countLimit: Int, tuning: MemoryCacheTuning = MemoryCacheTuning()) {
        self.costLimit = max(0, costLimit)
        self.countLimit = max(0, countLimit)
        self.tuning = tuning
        self.smallShare = tuning.smallRatio
        updateTargets()
    }

    @inlinable var totalCost: Int { small.cost + main.cost }

    /// The most one entry may cost: ``maximumEntryCostShare`` of ``costLimit``.
    @inlinable var entryCostLimit: Int {
        maximumEntryCostShare >= 1 ? costLimit : Int(Double(costLimit) * max(0, maximumEntryCostShare))
    }
    @inlinable var count: Int { slots.count }

    // MARK: - Reading

    /// The hit path: one hash lookup and a counter bump, no relinking. An entry whose expiry is
    /// at or before the current time is removed and reported as a miss (see ``isExpired(_:now:clock:)``).
    @inlinable
    mutating func value(forKey key: Key, now: Double, clock: any CacheClock) -> Value? {
        guard let slot = slots[key] else { return nil }
        let i = Int(slot)
        if isExpired(i, now: now, clock: clock) {
            dropExpired(slot)
            return nil
        }
        if nodes[i].frequency < tuning.maxFrequency {
            nodes[i].frequency &+= 1
        }
        return values[i]
    }

    /// Out of line: keeps the hit path small enough to be inlined into ``MemoryCache``.
    @inlinable @inline(never)
    mutating func dropExpired(_ slot: Int32) {
        drop(slot)
    }

    /// Whether the entry at `i` has expired. Entries that never expire (`.infinity`) cost one
    /// compare. `now` is the time read before taking the lock, or `-infinity` when the cache has
    /// no global lifetime: the clock is then read here, only for entries carrying their own expiry.
    @inlinable @inline(__always)
    func isExpired(_ i: Int, now: Double, clock: any CacheClock) -> Bool {
        let expiry = nodes[i].expiry
        guard expiry != .infinity else { return false }
        return expiry <= (now != -.infinity ? now : clock.now.timeIntervalSinceReferenceDate)
    }


    // MARK: - Writing

    /// Stores `value`, replacing any entry for `key`, then evicts until both limits hold.
    /// A value costing more than the cost limit, or than its share for one entry, is not stored
    /// (and any old value is dropped).
    @inlinable
    mutating func setValue(_ value: Value, forKey key: Key, cost: Int, expiry: Double, now: Double) {
        let cost = max(0, cost)
        guard cost <= entryCostLimit, countLimit > 0 else {
            dropValue(forKey: key)
            return
        }
        // One hash-table probe finds the key or claims the slot the new node will take.
        let candidate = freeHead != Self.none ? freeHead : Int32(nodes.count)
        let slot = Self.read(&slots[key, default: candidate])
        if slot != candidate {
            replace(slot, with: value, cost: cost, expiry: expiry, now: now)
            return
        }
        let hash = key.hashValue
        let queue = admissionQueue(forNewKeyWithHash: hash)
        let allocated = allocate(key: key, hash: hash, value: value, cost: cost, expiry: expiry)
        assert(allocated == slot)
        // The new node is in the key map but in no queue yet, so eviction cannot pick it;
        // `slots.count` already includes it, hence `countLimit` rather than `countLimit - 1`.
        if totalCost > costLimit - cost || slots.count > countLimit {
            evict(untilCost: costLimit - cost, count: countLimit, now: now)
        }
        append(slot, to: queue)
    }

    /// Where a new key starts: main if it is a ghost of either queue, small otherwise. Ghost
    /// hits also steer the small queue's share.
    @inlinable
    mutating func admissionQueue(forNewKeyWithHash hash: Int) -> MemoryCacheQueueID {
        let sequence = ghosts.removeReturningSequence(hash)
        if sequence != 0 {
            // Ghosts come back in (reverse) eviction order when a list is scrolled back over:
            // only such a run grows the small queue; random returns (skewed reuse) do not.
            let distance = sequence > lastGhostHit ? sequence - lastGhostHit : lastGhostHit - sequence
            lastGhostHit = sequence
            if distance <= tuning.scanGhostDistance {
                adapt(growingSmall: true)
            }
            return .main
        }
        guard tuning.adaptsSmallShare else { return .small }
        // Main's ghosts expire after `mainGhostRatio` x count *misses*, not main evictions
        // (which can be rare), so a hit there means "evicted from main a short while ago".
        mainGhosts.age()
        if mainGhosts.remove(hash) {
            adapt(growingSmall: false)
            return tuning.mainGhostHitsEnterMain ? .main : .small
        }
        return .small
    }

    /// ARC-style adaptation of the small queue's share. A key evicted from small that comes
    /// back means a larger small queue would have kept it (typical of a feed scrolled down and
    /// back up: the best cache is then the most recent items, i.e. a FIFO); a key evicted from
    /// main that comes back means main should be larger (typical of skewed popularity). Each
    /// ghost hit moves the share by ``MemoryCacheTuning/growthStep`` or ``MemoryCacheTuning/shrinkStep``
    /// entries' worth, within
    /// [``MemoryCacheTuning/smallRatio``, ``MemoryCacheTuning/maximumSmallRatio``]. Runs on
    /// misses only.
    @inlinable
    mutating func adapt(growingSmall: Bool) {
        guard tuning.adaptsSmallShare else { return }
        let step = (growingSmall ? tuning.growthStep : tuning.shrinkStep) / Double(max(1, slots.count))
        let share = growingSmall
            ? min(tuning.maximumSmallRatio, smallShare + step)
            : max(tuning.smallRatio, smallShare - step)
        guard share != smallShare else { return }
        smallShare = share
        updateTargets()
    }

    @inlinable @inline(__always)
    static func read(_ slot: inout Int32) -> Int32 {
        slot
    }

    /// Replaces an entry in place, keeping its queue and counter (the standing the key has
    /// earned). The node is detached while others are evicted to make room, so the value just
    /// stored is never the one evicted.
    @inlinable
    mutating func replace(_ slot: Int32, with value: Value, cost: Int, expiry: Double, now: Double) {
        let i = Int(slot)
        let queue = nodes[i].queue
        unlink(slot)
        nodes[i].queue = .free // detached: in no list until re-appended below
        if let old = values[i] {
            dropped.append(old)
        }
        values[i] = value
        nodes[i].cost = cost
        nodes[i].expiry = expiry
        if totalCost > costLimit - cost {
            // `slots.count` still includes this key, hence `countLimit` rather than `- 1`.
            evict(untilCost: costLimit - cost, count: countLimit, now: now)
        }
        append(slot, to: queue)
    }

    /// Removes the entry for `key`; returns its value unless it had expired.
    @inlinable @discardableResult
    mutating func removeValue(forKey key: Key, now: Double, clock: any CacheClock) -> Value? {
        guard let slot = slots[key] else { return nil }
        guard !isExpired(Int(slot), now: now, clock: clock) else {
            drop(slot)
            return nil
        }
        return unlinkAndFree(slot)
    }

    /// Removes the entry for `key`, if any; its value goes to ``dropped``.
    @inlinable
    mutating func dropValue(forKey key: Key) {
        if let slot = slots[key] {
            drop(slot)
        }
    }

    /// Drops every entry and every ghost, releasing the storage (the values go to ``dropped``).
    @inlinable
    mutating func removeAll() {
        clearEntries(keepingCapacity: false)
        ghosts.removeAll()
        mainGhosts.removeAll()
        smallShare = tuning.smallRatio
        updateTargets()
    }
}
