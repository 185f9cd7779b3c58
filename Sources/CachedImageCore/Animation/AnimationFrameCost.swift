import Foundation

/// The memory-cache entry that accounts for one player's decoded frames, so they push other
/// images out like any decoded image.
///
/// One entry per player (its key carries an identifier of its own, never the image's URL):
/// ten players of one sticker count ten buffers, and one player's reset never touches another's
/// entry. The entry goes when the player does.
package final class AnimationFrameCost: Sendable {
    /// The key, unique to this player.
    package let key: ImageCacheKey
    private let cache: MemoryCache<ImageCacheKey, DecodedImage>?

    package init(cache: MemoryCache<ImageCacheKey, DecodedImage>?) {
        self.cache = cache
        key = ImageCacheKey(
            cacheKey: "cachedimage-animation-frames:" + UUID().uuidString,
            processorIdentifiers: ["cachedimage.animation-frames"]
        )
    }

    deinit {
        cache?.removeValue(forKey: key)
    }

    /// Records that the player holds `cost` bytes of frames (removes the entry at 0).
    package func update(_ cost: Int, format: ImageFormat) {
        guard let cache else { return }
        guard cost > 0 else {
            cache.removeValue(forKey: key)
            return
        }
        let marker = DecodedImage(image: nil, data: nil, format: format, pixelSize: PixelSize(width: 0, height: 0), cost: cost)
        cache.setValue(marker, forKey: key, cost: cost)
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
