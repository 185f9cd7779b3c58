/// First in, first out: a ring buffer; hits change nothing.
struct FIFOPolicy: EvictionPolicy {
    private var keys: [Int] = []
    private var slots: Set<Int> = []
    private var oldest = 0
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        slots.reserveCapacity(self.capacity)
    }

    mutating func access(_ key: Int) -> Bool {
        if slots.contains(key) { return true }
        if keys.count < capacity {
            keys.append(key)
        } else {
            slots.remove(keys[oldest])
            keys[oldest] = key
            oldest = (oldest + 1) % capacity
        }
        slots.insert(key)
        return false
    }
}
