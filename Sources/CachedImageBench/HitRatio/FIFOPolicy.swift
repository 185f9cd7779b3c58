/// First in, first out: a ring of slots whose hand points at the oldest key; hits change nothing.
struct FIFOPolicy: EvictionPolicy {
    private var resident: ResidentSlots
    private var oldest = 0

    init(capacity: Int) {
        resident = ResidentSlots(capacity: capacity)
    }

    mutating func access(_ key: Int) -> Bool {
        if resident.slot(of: key) != nil { return true }
        if resident.isFull {
            resident.replace(oldest, with: key)
            oldest = (oldest + 1) % resident.capacity
        } else {
            _ = resident.append(key)
        }
        return false
    }
}
