import Foundation

/// The memory-cache entry that accounts for one player's decoded frames, so they push other
/// images out like any decoded image, for as long as the frames are held.
///
/// One entry per player (its key carries an identifier of its own, never the image's URL):
/// ten players of one sticker count ten buffers, and one player's reset never touches another's
/// entry. The entry goes when the player does.
///
/// The entry's value holds an ``EvictionSentinel`` that only the cache keeps alive: when the
/// cache lets go of the entry (eviction, a trim, memory pressure), the sentinel goes with it
/// and calls `onEvicted`, at once, so the player drops its frames then, even a fully buffered
/// animation that never decodes again. Replacing or removing the entry on purpose does not.
package final class AnimationFrameCost: Sendable {
    /// The key, unique to this player.
    package let key: ImageCacheKey
    private let cache: MemoryCache<ImageCacheKey, DecodedImage>?
    private let onEvicted: @Sendable () -> Void
    /// The sentinel in the cache's entry; weak: the cache owns it.
    private let sentinel = Locked<WeakSentinel>(WeakSentinel())

    /// - Parameter onEvicted: Called (on whichever thread released the entry) when the cache
    ///   lets go of a non-empty entry this object did not remove.
    package init(cache: MemoryCache<ImageCacheKey, DecodedImage>?, onEvicted: @escaping @Sendable () -> Void = {}) {
        self.cache = cache
        self.onEvicted = onEvicted
        key = ImageCacheKey(
            cacheKey: "cachedimage-animation-frames:" + UUID().uuidString,
            processorIdentifiers: ["cachedimage.animation-frames"]
        )
    }

    deinit {
        remove()
    }

    /// Records that the player holds `cost` bytes of frames (removes the entry at 0).
    package func update(_ cost: Int, format: ImageFormat) {
        guard let cache else { return }
        guard cost > 0 else {
            remove()
            return
        }
        // The entry's sentinel, the same one across updates (replacing the value must not
        // look like an eviction), or a new one when the cache let go of the last.
        let current: EvictionSentinel = sentinel.withLock { weak in
            if let live = weak.value, !live.isDisarmed { return live }
            let made = EvictionSentinel(onEvicted)
            weak.value = made
            return made
        }
        let marker = DecodedImage(image: current, data: nil, format: format, pixelSize: PixelSize(width: 0, height: 0), cost: cost)
        cache.setValue(marker, forKey: key, cost: cost)
    }

    /// Removes the entry on purpose: its sentinel is disarmed first.
    private func remove() {
        guard let cache else { return }
        let current = sentinel.withLock { weak -> EvictionSentinel? in
            defer { weak.value = nil }
            return weak.value
        }
        current?.disarm()
        cache.removeValue(forKey: key)
    }

    /// Whether the cache let go of a non-empty entry (memory pressure or eviction).
    package func wasEvicted(holding cost: Int) -> Bool {
        guard let cache, cost > 0 else { return false }
        return cache.value(forKey: key) == nil
    }

    /// The bytes the cache currently accounts to this player (0 when it holds no entry).
    package var accountedCost: Int {
        cache?.value(forKey: key)?.cost ?? 0
    }
}

/// Lives exactly as long as the memory cache keeps an ``AnimationFrameCost``'s entry; calls its
/// handler when it goes, unless disarmed (the entry was removed on purpose).
package final class EvictionSentinel: Sendable {
    private let onRelease: @Sendable () -> Void
    private let disarmed = Locked(false)

    init(_ onRelease: @escaping @Sendable () -> Void) {
        self.onRelease = onRelease
    }

    var isDisarmed: Bool { disarmed.withLock { $0 } }

    func disarm() { disarmed.withLock { $0 = true } }

    deinit {
        if !isDisarmed { onRelease() }
    }
}

/// A weak reference, for ``Locked``.
struct WeakSentinel: @unchecked Sendable {
    weak var value: EvictionSentinel?
}
