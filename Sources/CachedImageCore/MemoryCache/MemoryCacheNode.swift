/// The bookkeeping of one slot of ``MemoryCacheStorage`` (its key and value sit at the same
/// index of parallel arrays). Links are `Int32` indices (`-1` is "none"), so entries cost no
/// heap allocation of their own. Deliberately not generic: code that handles it stays fast
/// even where the cache's generic code is not specialised.
struct MemoryCacheNode {
    /// `key.hashValue`, kept so an eviction can record a ghost without hashing again.
    var hash: Int
    var cost: Int
    /// Absolute expiry in seconds since the reference date; `.infinity` when entries never expire.
    var expiry: Double
    var previous: Int32
    /// Next node in the queue (towards the tail), or the next free slot.
    var next: Int32
    /// The saturating S3-FIFO access counter.
    var frequency: UInt8
    var queue: MemoryCacheQueueID
}
