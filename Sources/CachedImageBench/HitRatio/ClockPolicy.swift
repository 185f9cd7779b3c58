/// CLOCK (second chance): a ring of slots with one reference bit each; the hand clears set bits
/// and evicts the first slot whose bit is clear.
struct ClockPolicy: EvictionPolicy {
    private var resident: ResidentSlots
    private var referenced: [Bool] = []
    private var hand = 0

    init(capacity: Int) {
        resident = ResidentSlots(capacity: capacity)
    }

    mutating func access(_ key: Int) -> Bool {
        if let slot = resident.slot(of: key) {
            referenced[slot] = true
            return true
        }
        guard resident.isFull else {
            _ = resident.append(key)
            referenced.append(false)
            return false
        }
        while referenced[hand] {
            referenced[hand] = false
            hand = (hand + 1) % resident.capacity
        }
        resident.replace(hand, with: key)
        hand = (hand + 1) % resident.capacity
        return false
    }
}
