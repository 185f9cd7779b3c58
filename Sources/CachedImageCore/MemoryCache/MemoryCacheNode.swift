/// The bookkeeping of one slot of ``MemoryCacheStorage`` (its key and value sit at the same
/// index of parallel arrays). Links are `Int32` indices (`-1` is "none"), so entries cost no
/// heap allocation of their own. Deliberately not generic: code that handles it stays fast
/// even where the cache's generic code is not specialised.
@usableFromInline
struct MemoryCacheNode {
    /// `key.hashValue`, kept so an eviction can record a ghost without hashing again.
    @usableFromInline var hash: Int
    @usableFromInline var cost: Int
    /// Absolute expiry in seconds since the reference date; `.infinity` when entries never expire.
    @usableFromInline var expiry: Double
    @usableFromInline var previous: Int32
    /// Next node in the queue (towards the tail), or the next free slot.
    @usableFromInline var next: Int32
    /// The saturating S3-FIFO access counter.
    @usableFromInline var frequency: UInt8
    @usableFromInline var queue: MemoryCacheQueueID

    @inlinable
    init(hash: Int, cost: Int, expiry: Double, previous: Int32, next: Int32, frequency: UInt8, queue: MemoryCacheQueueID) {
        self.hash = hash
        self.cost = cost
        self.expiry = expiry
        self.previous = previous
        self.next = next
        self.frequency = frequency
        self.queue = queue
    }
}
