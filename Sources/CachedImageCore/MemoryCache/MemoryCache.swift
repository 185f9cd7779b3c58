import Foundation

/// A thread-safe, size-bounded in-memory cache, typically of decoded images.
///
/// Entries carry a *cost* (usually their decoded byte size). The cache never holds more than
/// ``costLimit`` total cost nor more than ``countLimit`` entries: storing a value evicts others
/// first, and a value costing more than ``costLimit`` (or than ``maximumEntryCostShare`` of it)
/// is not stored at all.
///
/// Eviction follows S3-FIFO (Yang et al., SOSP '23): new keys wait in a small probationary
/// queue (about 10% of the budget) so one-hit wonders, such as images scrolled past once, leave
/// quickly without pushing out images that are used again and again. Keys evicted recently from
/// the probationary queue are remembered, and go straight to the protected queue when they come
/// back. The probationary queue's share adapts: it grows when recently dropped keys come back in
/// the order they left (a list scrolled back over, where the most recent items are the best
/// cache) and shrinks when keys dropped from the protected queue come back. A cache hit takes one
/// lock and only bumps a small counter. Values leaving the cache (evicted, replaced, expired,
/// removed) are released after the lock is given up, so freeing a large image never makes
/// another thread's lookup wait.
///
/// ```swift
/// let cache = MemoryCache<URL, DecodedImage>(costLimit: 100 * 1024 * 1024)
/// cache.setValue(image, forKey: url, cost: image.cost)
/// if let hit = cache.value(forKey: url) { show(hit) }
///
/// // On a memory warning:
/// cache.trim(toCost: 0)
/// ```
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    // @unchecked: every mutable field lives in `storage`, only touched inside its lock.
    @usableFromInline let storage: Locked<MemoryCacheStorage<Key, Value>>
    @usableFromInline let clock: any CacheClock

    /// How long an entry stays valid after it was stored, or `nil` for no expiry.
    /// An expired entry is reported as a miss and removed. Entries stored with
    /// ``setValue(_:forKey:cost:expiresAt:)`` expire at the earlier of the two dates.
    public let entryLifetime: TimeInterval?

    /// Creates an empty cache.
    ///
    /// - Parameters:
    ///   - costLimit: The maximum total cost of all entries (for images, bytes). Negative values
    ///     are treated as zero.
    ///   - countLimit: The maximum number of entries. Unlimited by default.
    ///   - entryLifetime: How long an entry stays valid after it was stored; `nil` (the default)
    ///     keeps entries until they are evicted. The clock is read only when this is set.
    ///   - clock: The source of the current time, injectable for tests.
    package convenience init(
        costLimit: Int,
        countLimit: Int = .max,
        entryLifetime: TimeInterval? = nil,
        clock: any CacheClock = SystemClock()
    ) {
        self.init(
            costLimit: costLimit,
            countLimit: countLimit,
            entryLifetime: entryLifetime,
            clock: clock,
            tuning: MemoryCacheTuning()
        )
    }

    init(
        costLimit: Int,
        countLimit: Int,
        entryLifetime: TimeInterval?,
        clock: any CacheClock,
        tuning: MemoryCacheTuning
    ) {
        storage = Locked(MemoryCacheStorage(costLimit: costLimit, countLimit: countLimit, tuning: tuning))
        self.clock = clock
        self.entryLifetime = entryLifetime
    }

    /// Returns the value stored for `key`, or `nil` if there is none or it has expired.
    @inlinable
    public func value(forKey key: Key) -> Value? {
        let now = currentTime()
        let (value, expired) = storage.withLock { storage in
            (storage.value(forKey: key, now: now, clock: clock), !storage.dropped.isEmpty)
        }
        if expired {
            // Rare (an entry found expired): a second pass takes it out to release it unlocked,
            // which keeps the hit path free of that bookkeeping.
            withStorage { _ in }
        }
        return value
    }

    /// Stores `value` for `key`, replacing any previous value, and evicts other entries as
    /// needed to respect ``costLimit`` and ``countLimit``.
    ///
    /// A value whose `cost` exceeds ``costLimit`` is not stored, and any previous value for
    /// `key` is removed. Negative costs count as zero.
    @inlinable
    public func setValue(_ value: Value, forKey key: Key, cost: Int) {
        let now = currentTime()
        let expiry = entryLifetime.map { now + $0 } ?? .infinity
        withStorage { $0.setValue(value, forKey: key, cost: cost, expiry: expiry, now: now) }
    }

    /// Stores `value` for `key` until `expiresAt`, replacing any previous value, and evicts
    /// other entries as needed to respect ``costLimit`` and ``countLimit``.
    ///
    /// Use it for values that must not outlive their freshness, e.g. an image whose HTTP
    /// response said `max-age=60`: from `expiresAt` on (by the cache's clock), ``value(forKey:)``
    /// reports a miss and drops the entry. When the cache also has an ``entryLifetime``, the
    /// earlier of the two expiries applies. A `nil` date means "no expiry of its own", exactly
    /// like ``setValue(_:forKey:cost:)``.
    ///
    /// A date that is not after the current time (`no-store`, `no-cache`, `max-age=0`) stores
    /// nothing and removes any previous value for `key`, so a stale image is never served from
    /// memory. Like ``setValue(_:forKey:cost:)``, a value whose `cost` exceeds ``costLimit``
    /// is not stored either.
    ///
    /// ```swift
    /// let expiry = Date().addingTimeInterval(maxAge)
    /// cache.setValue(image, forKey: url, cost: image.cost, expiresAt: expiry)
    /// ```
    ///
    /// Reading such an entry reads the clock once (inside the lock) and compares one date;
    /// entries stored without an expiry pay nothing for it.
    @inlinable
    public func setValue(_ value: Value, forKey key: Key, cost: Int, expiresAt: Date?) {
        guard let expiresAt else {
            setValue(value, forKey: key, cost: cost)
            return
        }
        let now = clock.now.timeIntervalSinceReferenceDate
        var expiry = expiresAt.timeIntervalSinceReferenceDate
        if let entryLifetime {
            expiry = min(expiry, now + entryLifetime)
        }
        guard expiry > now else {
            withStorage { $0.dropValue(forKey: key) }
            return
        }
        withStorage { $0.setValue(value, forKey: key, cost: cost, expiry: expiry, now: now) }
    }

    /// Removes the value stored for `key`.
    ///
    /// - Returns: The removed value, or `nil` if there was none (expired values included).
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        let now = currentTime()
        return withStorage { $0.removeValue(forKey: key, now: now, clock: clock) }
    }

    /// Removes every entry whose key satisfies `shouldRemove`: a scan of all keys, for rare
    /// operations (replacing an image the app stored under its own key).
    func removeValues(where shouldRemove: (Key) -> Bool) {
        withStorage { storage in
            for key in storage.slots.keys.filter(shouldRemove) { storage.dropValue(forKey: key) }
        }
    }

    /// Removes every entry.
    public func removeAll() {
        withStorage { $0.removeAll() }
    }

    /// Evicts entries, least valuable first, until ``totalCost`` is at most `limit`.
    /// Use `trim(toCost: 0)` to empty the cache on a memory warning, or a fraction of
    /// ``costLimit`` to shed part of it. ``costLimit`` itself is unchanged.
    public func trim(toCost limit: Int) {
        let now = currentTime()
        withStorage { $0.evict(untilCost: limit, count: $0.countLimit, now: now) }
    }

    /// Evicts entries, least valuable first, until ``count`` is at most `limit`.
    /// ``countLimit`` itself is unchanged.
    public func trim(toCount limit: Int) {
        let now = currentTime()
        withStorage { $0.evict(untilCost: $0.costLimit, count: limit, now: now) }
    }

    /// Whether a value is stored for `key` (expired or not), without counting as a use: for the
    /// package's measurements, which must not change what the cache keeps.
    package func containsValue(forKey key: Key) -> Bool {
        storage.withLock { $0.slots[key] != nil }
    }

    /// The total cost of the stored entries (expired entries not yet removed included).
    public var totalCost: Int {
        storage.withLock { $0.totalCost }
    }

    /// The number of stored entries (expired entries not yet removed included).
    public var count: Int {
        storage.withLock { $0.count }
    }

    /// The maximum total cost. Lowering it evicts entries immediately.
    public var costLimit: Int {
        get { storage.withLock { $0.costLimit } }
        set {
            let now = currentTime()
            withStorage { $0.setCostLimit(newValue, now: now) }
        }
    }

    /// The share of ``costLimit`` a single entry may take, from 0 to 1 (the default: any entry
    /// that fits the cache). A value costing more is not stored (its caller still has it) and
    /// any previous value for its key is removed, so one huge image never empties the cache.
    /// ``ImagePipeline`` sets it from ``ImagePipeline/Configuration/memoryCacheMaximumEntryShare``
    /// (10% by default). Entries already stored are kept.
    public var maximumEntryCostShare: Double {
        get { storage.withLock { $0.maximumEntryCostShare } }
        set { storage.withLock { $0.maximumEntryCostShare = newValue } }
    }

    /// The maximum number of entries. Lowering it evicts entries immediately.
    public var countLimit: Int {
        get { storage.withLock { $0.countLimit } }
        set {
            let now = currentTime()
            withStorage { $0.setCountLimit(newValue, now: now) }
        }
    }

    /// Runs `body` on the storage under the lock, then releases the values it dropped (evicted,
    /// replaced, expired, cleared) after unlocking, so freeing an image never holds up another
    /// thread's lookup, such as a view's first frame on the main thread.
    @inlinable @inline(__always)
    func withStorage<T>(_ body: (inout MemoryCacheStorage<Key, Value>) -> T) -> T {
        var dropped = MemoryCacheDropped<Value>()
        let result = storage.withLock { storage in
            let result = body(&storage)
            if !storage.dropped.isEmpty { swap(&dropped, &storage.dropped) }
            return result
        }
        withExtendedLifetime(dropped) {}
        return result
    }

    /// Seconds since the reference date, or `-infinity` (nothing ever looks expired) when
    /// entries have no lifetime, so the clock is not consulted.
    @inlinable @inline(__always)
    func currentTime() -> Double {
        entryLifetime == nil ? -.infinity : clock.now.timeIntervalSinceReferenceDate
    }
}
