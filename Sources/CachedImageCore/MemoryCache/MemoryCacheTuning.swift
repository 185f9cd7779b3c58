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
}
