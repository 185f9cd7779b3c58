/// Belady's optimal (MIN), computed offline: on a miss with a full cache, evict the resident key
/// whose next request is furthest in the future. The upper bound no online policy can beat.
enum BeladyPolicy {
    static func hitRatio(_ trace: Trace, capacity: Int) -> Double {
        let requests = trace.requests
        let never = Int.max
        // nextUse[i]: the position of the next request for requests[i], or `never`.
        var nextUse = [Int](repeating: never, count: requests.count)
        var lastSeen: [Int: Int] = [:]
        for position in stride(from: requests.count - 1, through: 0, by: -1) {
            nextUse[position] = lastSeen[requests[position]] ?? never
            lastSeen[requests[position]] = position
        }
        // Resident keys and their current next use; a max-heap with lazy deletion of stale entries.
        var resident: [Int: Int] = [:]
        resident.reserveCapacity(capacity)
        var heap = MaxHeap()
        var hits = 0
        for (position, key) in requests.enumerated() {
            let next = nextUse[position]
            if resident[key] != nil {
                hits += 1
            } else if resident.count >= capacity {
                while let top = heap.pop() {
                    if resident[top.key] == top.nextUse {
                        resident.removeValue(forKey: top.key)
                        break
                    }
                }
            }
            resident[key] = next
            heap.push(nextUse: next, key: key)
        }
        return Double(hits) / Double(requests.count)
    }

    /// A binary max-heap of (next use, key) ordered by next use.
    private struct MaxHeap {
        private var items: [(nextUse: Int, key: Int)] = []

        mutating func push(nextUse: Int, key: Int) {
            items.append((nextUse, key))
            var child = items.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard items[parent].nextUse < items[child].nextUse else { break }
                items.swapAt(parent, child)
                child = parent
            }
        }

        mutating func pop() -> (nextUse: Int, key: Int)? {
            guard let top = items.first else { return nil }
            let last = items.removeLast()
            guard !items.isEmpty else { return top }
            items[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var largest = parent
                if left < items.count && items[left].nextUse > items[largest].nextUse { largest = left }
                if right < items.count && items[right].nextUse > items[largest].nextUse { largest = right }
                guard largest != parent else { break }
                items.swapAt(parent, largest)
                parent = largest
            }
            return top
        }
    }
}
