/// The resident keys of a count-bounded cache simulator: slot `i` holds `keys[i]`, and a
/// dictionary finds a resident key's slot. Slots fill in order up to `capacity`; after that a key
/// only enters by taking the slot of the key a policy evicts. Shared by ``LRUPolicy``,
/// ``ClockPolicy`` and ``FIFOPolicy``, which differ only in which slot they pick.
struct ResidentSlots {
    let capacity: Int
    private(set) var keys: [Int] = []
    private var slotOfKey: [Int: Int] = [:]

    /// Room for `capacity` keys (at least one).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        slotOfKey.reserveCapacity(self.capacity)
    }

    /// Whether every slot holds a key, so a new key must evict one.
    var isFull: Bool { keys.count == capacity }

    /// The slot holding `key`, or `nil` when it is not resident.
    func slot(of key: Int) -> Int? {
        slotOfKey[key]
    }

    /// Puts `key` into the next empty slot and returns it. The table must not be full.
    mutating func append(_ key: Int) -> Int {
        precondition(!isFull, "no empty slot left")
        keys.append(key)
        slotOfKey[key] = keys.count - 1
        return keys.count - 1
    }

    /// Evicts the key in `slot` and puts `key` there.
    mutating func replace(_ slot: Int, with key: Int) {
        slotOfKey.removeValue(forKey: keys[slot])
        keys[slot] = key
        slotOfKey[key] = slot
    }
}
