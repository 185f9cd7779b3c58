/// The intrusive lists of ``MemoryCacheStorage``: slots taken from and returned to the free
/// list, and linked into or out of the small and main FIFOs. Links are `Int32` slot indices.
extension MemoryCacheStorage {
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

    /// Unlinks the node, removes its key and returns its slot to the free list; its value goes
    /// to ``dropped``, to be released once the lock is given up.
    @inlinable
    mutating func drop(_ slot: Int32) {
        if let value = unlinkAndFree(slot) {
            dropped.append(value)
        }
    }

    /// Unlinks the node, removes its key and returns its slot to the free list, handing its
    /// value to the caller.
    @inlinable
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

