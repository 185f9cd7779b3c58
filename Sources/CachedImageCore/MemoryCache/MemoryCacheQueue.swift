/// Head, tail and totals of one intrusive FIFO inside ``MemoryCacheStorage``.
/// Entries are appended at `tail` and evicted from `head`.
struct MemoryCacheQueue {
    static let none: Int32 = -1

    var head: Int32 = MemoryCacheQueue.none
    var tail: Int32 = MemoryCacheQueue.none
    var count = 0
    var cost = 0

    var isEmpty: Bool { head == MemoryCacheQueue.none }
}
