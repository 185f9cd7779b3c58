/// Which intrusive list a ``MemoryCacheNode`` is linked into.
@usableFromInline
enum MemoryCacheQueueID: UInt8 {
    /// The probationary FIFO that every new key enters (unless it is a ghost hit).
    case small
    /// The protected FIFO with lazy reinsertion.
    case main
    /// The slot is on the free list.
    case free
}
