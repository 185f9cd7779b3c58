/// Limits and eviction of ``MemoryCacheStorage``: the budget (cost and count, with the small
/// queue's share of each) and the S3-FIFO eviction order that keeps to it.
extension MemoryCacheStorage {
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
            clearEntries(keepingCapacity: true)
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
                drop(slot)
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
                drop(slot)
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
                drop(slot)
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

    /// Removes every entry (not the ghosts); the values go to ``dropped``.
    @inlinable
    mutating func clearEntries(keepingCapacity: Bool) {
        for case let value? in values {
            dropped.append(value)
        }
        nodes.removeAll(keepingCapacity: keepingCapacity)
        keys.removeAll(keepingCapacity: keepingCapacity)
        values.removeAll(keepingCapacity: keepingCapacity)
        freeHead = Self.none
        slots.removeAll(keepingCapacity: keepingCapacity)
        small = MemoryCacheQueue()
        main = MemoryCacheQueue()
    }
}
