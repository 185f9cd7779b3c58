/// Least recently used: a dictionary and an index-linked list; a hit moves the key to the front.
struct LRUPolicy: EvictionPolicy {
    private struct Node {
        var key: Int
        var previous: Int32
        var next: Int32
    }

    private var nodes: [Node] = []
    private var slots: [Int: Int32] = [:]
    private var head: Int32 = -1 // most recent
    private var tail: Int32 = -1 // least recent
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        slots.reserveCapacity(self.capacity)
    }

    mutating func access(_ key: Int) -> Bool {
        if let slot = slots[key] {
            if slot != head {
                unlink(slot)
                pushFront(slot)
            }
            return true
        }
        let slot: Int32
        if nodes.count < capacity {
            nodes.append(Node(key: key, previous: -1, next: -1))
            slot = Int32(nodes.count - 1)
        } else {
            slot = tail
            slots.removeValue(forKey: nodes[Int(slot)].key)
            unlink(slot)
            nodes[Int(slot)].key = key
        }
        slots[key] = slot
        pushFront(slot)
        return false
    }

    private mutating func unlink(_ slot: Int32) {
        let previous = nodes[Int(slot)].previous
        let next = nodes[Int(slot)].next
        if previous == -1 { head = next } else { nodes[Int(previous)].next = next }
        if next == -1 { tail = previous } else { nodes[Int(next)].previous = previous }
    }

    private mutating func pushFront(_ slot: Int32) {
        nodes[Int(slot)].previous = -1
        nodes[Int(slot)].next = head
        if head != -1 { nodes[Int(head)].previous = slot }
        head = slot
        if tail == -1 { tail = slot }
    }
}
