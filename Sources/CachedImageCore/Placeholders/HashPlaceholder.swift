import Foundation

/// A placeholder a view paints from a hash that came with the image's URL, before any byte of
/// the image arrives: what `CachedAsyncImage`'s `.placeholder(thumbHash:)` and
/// `.placeholder(blurHash:)` and `CachedImageViewLoader`'s `placeholderHash` carry.
///
/// It is shown only while the view would show its placeholder: never for a memory hit (the
/// first frame is the image), and no longer once the image or its first progressive preview
/// arrives. ``image`` decodes once per hash and keeps the result in a small shared cache, so a
/// view that renders often decodes nothing twice. A malformed hash decodes to `nil`: the view
/// shows its usual placeholder instead.
public enum HashPlaceholder: Sendable, Hashable {
    /// A Base64 ThumbHash; its aspect ratio is the original image's.
    case thumbHash(String)
    /// A BlurHash, decoded at 32x32 pixels (the view stretches it).
    case blurHash(String)

    /// The decoded placeholder, or `nil` for a malformed hash.
    public var image: PlaceholderImage? {
        if let cached = Self.cache.value(forKey: self) { return cached.image }
        let decoded = decode()
        Self.cache.setValue(Decoded(image: decoded), forKey: self, cost: decoded.map { $0.rgba.count } ?? 1)
        return decoded
    }

    /// The original image's aspect ratio (width / height) when the hash says (ThumbHash).
    public var aspectRatio: Double? {
        guard case .thumbHash(let string) = self else { return nil }
        return (try? ThumbHash(base64: string))?.aspectRatio
    }

    private func decode() -> PlaceholderImage? {
        switch self {
        case .thumbHash(let string): (try? ThumbHash(base64: string))?.image()
        case .blurHash(let string): (try? BlurHash(string))?.image(width: 32, height: 32)
        }
    }

    /// A decode's result, a failure included (so a malformed hash is not decoded again).
    private struct Decoded: Sendable {
        let image: PlaceholderImage?
    }

    /// The last few hundred decoded placeholders (4 KB each at most): a screen of rows.
    private static let cache = MemoryCache<HashPlaceholder, Decoded>(costLimit: 2 * 1024 * 1024, countLimit: 512)
}
