/// Head, tail and totals of one intrusive FIFO inside ``MemoryCacheStorage``.
/// Entries are appended at `tail` and evicted from `head`.
@usableFromInline
struct MemoryCacheQueue {
    @inlinable
    init() {}

    @usableFromInline static let none: Int32 = -1

    @usableFromInline var head: Int32 = MemoryCacheQueue.none
    @usableFromInline var tail: Int32 = MemoryCacheQueue.none
    @usableFromInline var count = 0
    @usableFromInline var cost = 0

    @inlinable var isEmpty: Bool { head == MemoryCacheQueue.none }
}
