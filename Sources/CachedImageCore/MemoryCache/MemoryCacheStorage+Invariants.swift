/// The structural self-check of ``MemoryCacheStorage``, run by tests after every step.
extension MemoryCacheStorage {
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
}
