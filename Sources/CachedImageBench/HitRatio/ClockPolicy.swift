/// CLOCK (second chance): a ring of slots with one reference bit each; the hand clears set bits
/// and evicts the first slot whose bit is clear.
struct ClockPolicy: EvictionPolicy {
    private var keys: [Int] = []
    private var referenced: [Bool] = []
    private var slots: [Int: Int] = [:]
    private var hand = 0
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        slots.reserveCapacity(self.capacity)
    }

    mutating func access(_ key: Int) -> Bool {
        if let slot = slots[key] {
            referenced[slot] = true
            return true
        }
        if keys.count < capacity {
            keys.append(key)
            referenced.append(false)
            slots[key] = keys.count - 1
            return false
        }
        while referenced[hand] {
            referenced[hand] = false
            hand = (hand + 1) % capacity
        }
        slots.removeValue(forKey: keys[hand])
        keys[hand] = key
        slots[key] = hand
        hand = (hand + 1) % capacity
        return false
    }
}
