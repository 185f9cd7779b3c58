/// Least recently used: resident slots and a list threaded through them by index; a hit moves
/// the key to the front, a miss with every slot taken reuses the slot at the back.
struct LRUPolicy: EvictionPolicy {
    private struct Links {
        var previous: Int32
        var next: Int32
    }

    private var resident: ResidentSlots
    private var links: [Links] = []
    private var head: Int32 = -1 // most recent
    private var tail: Int32 = -1 // least recent

    init(capacity: Int) {
        resident = ResidentSlots(capacity: capacity)
    }

    mutating func access(_ key: Int) -> Bool {
        if let slot = resident.slot(of: key) {
            if Int32(slot) != head {
                unlink(Int32(slot))
                pushFront(Int32(slot))
            }
            return true
        }
        let slot: Int32
        if resident.isFull {
            slot = tail
            unlink(slot)
            resident.replace(Int(slot), with: key)
        } else {
            slot = Int32(resident.append(key))
            links.append(Links(previous: -1, next: -1))
        }
        pushFront(slot)
        return false
    }

    private mutating func unlink(_ slot: Int32) {
        let previous = links[Int(slot)].previous
        let next = links[Int(slot)].next
        if previous == -1 { head = next } else { links[Int(previous)].next = next }
        if next == -1 { tail = previous } else { links[Int(next)].previous = previous }
    }

    private mutating func pushFront(_ slot: Int32) {
        links[Int(slot)].previous = -1
        links[Int(slot)].next = head
        if head != -1 { links[Int(head)].previous = slot }
        head = slot
        if tail == -1 { tail = slot }
    }
}
