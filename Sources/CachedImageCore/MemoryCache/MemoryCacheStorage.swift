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

    @usableFromInline var costLimit: Int
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
    @inlinable var count: Int { slots.count }

    // MARK: - Reading

    /// The hit path: one hash lookup and a counter bump, no relinking. An entry whose expiry is
    /// at or before the current time is removed and reported as a miss (see ``isExpired(_:now:clock:)``).
    @inlinable
    mutating func value(forKey key: Key, now: Double, clock: any CacheClock) -> Value? {
        guard let slot = slots[key] else { return nil }
        let i = Int(slot)
        if isExpired(i, now: now, clock: clock) {
            unlinkAndFree(slot)
            return nil
        }
        if nodes[i].frequency < tuning.maxFrequency {
            nodes[i].frequency &+= 1
        }
        return values[i]
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

    @inlinable
    func contains(_ key: Key) -> Bool {
        slots[key] != nil
    }

    /// Which queue holds `key`, for tests and measurements.
    @inlinable
    func queue(of key: Key) -> MemoryCacheQueueID? {
        slots[key].map { nodes[Int($0)].queue }
    }

    // MARK: - Writing

    /// Stores `value`, replacing any entry for `key`, then evicts until both limits hold.
    /// A value costing more than the cost limit is not stored (and any old value is dropped).
    @inlinable
    mutating func setValue(_ value: Value, forKey key: Key, cost: Int, expiry: Double, now: Double) {
        let cost = max(0, cost)
        guard cost <= costLimit, countLimit > 0 else {
            if let slot = slots[key] {
                unlinkAndFree(slot)
            }
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
        let expired = isExpired(Int(slot), now: now, clock: clock)
        let value = unlinkAndFree(slot)
        return expired ? nil : value
    }

    /// Drops every entry and every ghost, releasing the storage.
    @inlinable
    mutating func removeAll() {
        nodes = []
        keys = []
        values = []
        freeHead = Self.none
        slots = [:]
        small = MemoryCacheQueue()
        main = MemoryCacheQueue()
        ghosts.removeAll()
        mainGhosts.removeAll()
        smallShare = tuning.smallRatio
        updateTargets()
    }

    // MARK: - Limits

    @inlinable
    mutating func setCostLimit(_ limit: Int, now: Double) {
        costLimit = max(0, limit)
        updateTargets()
        evict(untilCost: costLimit, count: countLimit, now: now)
    }

    @inlinable
    mutating func setCountLimit(_ limit: Int, now: Double) {
        countLimit = max(0, limit)
        updateTargets()
        evict(untilCost: costLimit, count: countLimit, now: now)
    }

    /// Evicts, in policy order, until `totalCost <= limit` and `count <= countLimit`.
    /// Expired entries met on the way are dropped first.
    @inlinable
    mutating func evict(untilCost limit: Int, count limitCount: Int, now: Double) {
        let limit = max(0, limit)
        let limitCount = max(0, limitCount)
        if limitCount == 0 {
            clearEntries()
            return
        }
        guard totalCost > limit || slots.count > limitCount else { return }
        // The small queue's share is taken of the budget being evicted down to, so trimming
        // to a fraction of the limit sheds probationary entries before protected ones.
        let smallCost = limit == costLimit ? smallCostTarget : share(of: limit)
        let smallCount = limitCount == countLimit ? smallCountTarget : share(of: limitCount)
        while totalCost > limit || slots.count > limitCount {
            if small.isEmpty && main.isEmpty { break } // only detached nodes left
            evictOne(smallCost: smallCost, smallCount: smallCount, now: now)
        }
    }

    @inlinable
    func share(of limit: Int) -> Int {
        limit == .max ? .max : Int((Double(limit) * smallShare).rounded(.up))
    }

    @inlinable
    mutating func updateTargets() {
        smallCostTarget = share(of: costLimit)
        smallCountTarget = share(of: countLimit)
    }

    // MARK: - Eviction

    @inlinable
    mutating func evictOne(smallCost: Int, smallCount: Int, now: Double) {
        if !small.isEmpty
            && (small.cost >= smallCost || small.count >= smallCount || main.isEmpty)
            && evictFromSmall(now: now) {
            return
        }
        evictFromMain(now: now)
    }

    /// Promotes accessed heads of the small queue to main until it drops one. Returns false
    /// when the small queue emptied without an eviction (everything was promoted).
    @inlinable
    mutating func evictFromSmall(now: Double) -> Bool {
        while !small.isEmpty {
            let slot = small.head
            let i = Int(slot)
            if nodes[i].expiry <= now {
                unlinkAndFree(slot)
                return true
            }
            if nodes[i].frequency >= tuning.promotionThreshold {
                unlink(slot)
                if tuning.resetsFrequencyOnPromotion {
                    nodes[i].frequency = 0
                }
                append(slot, to: .main)
            } else {
                ghosts.insert(nodes[i].hash, limit: ghostLimit(ratio: tuning.ghostRatio))
                unlinkAndFree(slot)
                return true
            }
        }
        return false
    }

    /// CLOCK over the main FIFO: re-append heads with a non-zero counter (decremented), evict
    /// the first head whose counter is zero. Terminates within `maxFrequency + 1` passes.
    @inlinable
    mutating func evictFromMain(now: Double) {
        while !main.isEmpty {
            let slot = main.head
            let i = Int(slot)
            if nodes[i].frequency == 0 || nodes[i].expiry <= now {
                if tuning.adaptsSmallShare && nodes[i].expiry > now {
                    mainGhosts.insert(nodes[i].hash, limit: ghostLimit(ratio: tuning.mainGhostRatio))
                }
                unlinkAndFree(slot)
                return
            }
            nodes[i].frequency -= 1
            if main.count > 1 {
                unlink(slot)
                append(slot, to: .main)
            }
        }
    }

    @inlinable
    func ghostLimit(ratio: Double) -> Int {
        max(tuning.minimumGhostCapacity, Int(Double(slots.count) * ratio))
    }

    @inlinable
    mutating func clearEntries() {
        nodes.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        freeHead = Self.none
        slots.removeAll(keepingCapacity: true)
        small = MemoryCacheQueue()
        main = MemoryCacheQueue()
    }

    // MARK: - Self-check

    /// Describes every broken structural invariant (links, totals, key map, limits); empty when
    /// the storage is consistent. O(n); used by tests.
    func invariantViolations() -> [String] {
        var problems: [String] = []
        var seen = 0
        for (id, queue) in [(MemoryCacheQueueID.small, small), (.main, main)] {
            var count = 0
            var cost = 0
            var previous = Self.none
            var slot = queue.head
            while slot != Self.none, count <= nodes.count {
                let node = nodes[Int(slot)]
                if node.queue != id { problems.append("\(id): node \(slot) tagged \(node.queue)") }
                if node.previous != previous { problems.append("\(id): bad back link at \(slot)") }
                if let key = keys[Int(slot)] {
                    if slots[key] != slot { problems.append("\(id): key map disagrees at \(slot)") }
                } else {
                    problems.append("\(id): keyless node \(slot)")
                }
                count += 1
                cost += node.cost
                previous = slot
                slot = node.next
            }
            if previous != queue.tail { problems.append("\(id): tail mismatch") }
            if count != queue.count { problems.append("\(id): count \(queue.count), linked \(count)") }
            if cost != queue.cost { problems.append("\(id): cost \(queue.cost), linked \(cost)") }
            seen += count
        }
        if seen != slots.count { problems.append("linked \(seen) nodes, \(slots.count) keys") }
        if totalCost > costLimit { problems.append("totalCost \(totalCost) > costLimit \(costLimit)") }
        if slots.count > countLimit { problems.append("count \(slots.count) > countLimit \(countLimit)") }
        return problems
    }

    // MARK: - Intrusive lists

    @inlinable
    mutating func allocate(key: Key, hash: Int, value: Value, cost: Int, expiry: Double) -> Int32 {
        guard freeHead != Self.none else {
            nodes.append(Node(
                hash: hash, cost: cost, expiry: expiry,
                previous: Self.none, next: Self.none, frequency: 0, queue: .free
            ))
            keys.append(key)
            values.append(value)
            return Int32(nodes.count - 1)
        }
        let slot = freeHead
        let i = Int(slot)
        freeHead = nodes[i].next
        keys[i] = key
        values[i] = value
        nodes[i].hash = hash
        nodes[i].cost = cost
        nodes[i].expiry = expiry
        nodes[i].frequency = 0
        return slot
    }

    /// Unlinks the node, removes its key and returns its slot to the free list.
    @inlinable @discardableResult
    mutating func unlinkAndFree(_ slot: Int32) -> Value? {
        unlink(slot)
        let i = Int(slot)
        if let key = keys[i] {
            slots.removeValue(forKey: key)
        }
        let value = values[i]
        keys[i] = nil
        values[i] = nil
        nodes[i].queue = .free
        nodes[i].next = freeHead
        freeHead = slot
        return value
    }

    @inlinable
    mutating func append(_ slot: Int32, to queue: MemoryCacheQueueID) {
        let i = Int(slot)
        nodes[i].queue = queue
        nodes[i].next = Self.none
        let cost = nodes[i].cost
        switch queue {
        case .small: small = linked(slot, cost: cost, atTailOf: small)
        case .main: main = linked(slot, cost: cost, atTailOf: main)
        case .free: break
        }
    }

    @inlinable
    mutating func linked(
        _ slot: Int32, cost: Int, atTailOf queue: MemoryCacheQueue
    ) -> MemoryCacheQueue {
        var queue = queue
        nodes[Int(slot)].previous = queue.tail
        if queue.tail == Self.none {
            queue.head = slot
        } else {
            nodes[Int(queue.tail)].next = slot
        }
        queue.tail = slot
        queue.count += 1
        queue.cost += cost
        return queue
    }

    @inlinable
    mutating func unlink(_ slot: Int32) {
        let i = Int(slot)
        switch nodes[i].queue {
        case .small: small = unlinked(slot, from: small)
        case .main: main = unlinked(slot, from: main)
        case .free: break
        }
    }

    @inlinable
    mutating func unlinked(_ slot: Int32, from queue: MemoryCacheQueue) -> MemoryCacheQueue {
        var queue = queue
        let i = Int(slot)
        let previous = nodes[i].previous
        let next = nodes[i].next
        if previous == Self.none {
            queue.head = next
        } else {
            nodes[Int(previous)].next = next
        }
        if next == Self.none {
            queue.tail = previous
        } else {
            nodes[Int(next)].previous = previous
        }
        nodes[i].previous = Self.none
        nodes[i].next = Self.none
        queue.count -= 1
        queue.cost -= nodes[i].cost
        return queue
    }
}
