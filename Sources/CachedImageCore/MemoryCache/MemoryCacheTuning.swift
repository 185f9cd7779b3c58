/// The knobs of the S3-FIFO policy. The defaults are the values measured best on Zipf and
/// scan-heavy traces (see the memory-cache report); they are internal, not public API.
@usableFromInline
struct MemoryCacheTuning: Sendable {
    /// Share of the cost (and count) budget reserved for the small, probationary queue.
    @usableFromInline var smallRatio: Double = 0.1
    /// Saturation value of the per-entry access counter (3 = two bits).
    @usableFromInline var maxFrequency: UInt8 = 3
    /// A small-queue entry accessed at least this many times is promoted to main when it
    /// reaches the head of the small queue; otherwise it is evicted and remembered as a ghost.
    @usableFromInline var promotionThreshold: UInt8 = 1
    /// Whether a promoted entry starts main with a zero counter instead of keeping its hits.
    @usableFromInline var resetsFrequencyOnPromotion = true
    /// Ghost capacity as a multiple of the number of resident entries. The paper sizes the
    /// ghost like the main queue (~0.9); 0.1 measured better on every trace tried: +0.1-1 pp
    /// on Zipf, +0.6-4.7 pp when users scroll a feed down and back up (ghost hits of
    /// scrolled-past items otherwise crowd main).
    @usableFromInline var ghostRatio: Double = 0.1
    /// Lower bound of the ghost capacity, so a tiny cache still remembers a few keys.
    @usableFromInline var minimumGhostCapacity = 16
    /// Whether the small queue's share moves between ``smallRatio`` and ``maximumSmallRatio``
    /// with ghost hits (ARC-style): a key evicted from small that comes back grows it, a key
    /// evicted from main that comes back shrinks it.
    @usableFromInline var adaptsSmallShare = true
    /// Upper bound of the adaptive small-queue share. At 1 the cache can become a plain FIFO,
    /// which is optimal when a feed is scrolled down and back up with nothing reused.
    @usableFromInline var maximumSmallRatio: Double = 1.0
    /// Lifetime of the memory of keys evicted from main, in misses, as a multiple of the entry
    /// count (its table takes 4 x 16 bytes per remembered key).
    @usableFromInline var mainGhostRatio: Double = 1
    /// How many entries' worth of budget a scan-like small-queue ghost hit adds to the small
    /// queue's share.
    @usableFromInline var growthStep: Double = 8
    /// How many entries' worth of budget a main ghost hit takes from the small queue's share.
    /// Twice the growth step: measured on table 3 of BENCHMARKS.md (8/16 keeps every Zipf row
    /// and brings the pure scroll trace to LRU; 4/8, 8/8, 16/32 lose more on the mixed trace).
    @usableFromInline var shrinkStep: Double = 16
    /// Whether a key that comes back while a main ghost goes straight to main (as in ARC)
    /// rather than to the small queue.
    @usableFromInline var mainGhostHitsEnterMain = true
    /// A small-queue ghost hit grows the small share only when its eviction sequence number is
    /// within this distance of the previous ghost hit's (a scan coming back over a list).
    @usableFromInline var scanGhostDistance: UInt64 = 4
}
