import Foundation

/// A placeholder a view paints from a hash that came with the image's URL, before any byte of
/// the image arrives: what `CachedAsyncImage`'s `.placeholder(thumbHash:)` and
/// `.placeholder(blurHash:)` and `CachedImageViewLoader`'s `placeholderHash` carry.
///
/// It is shown only while the view would show its placeholder: never for a memory hit (the
/// first frame is the image), and no longer once the image or its first progressive preview
/// arrives. `image` decodes once per hash and keeps the result in a small shared cache, so a
/// view that renders often decodes nothing twice. A malformed hash decodes to `nil`: the view
/// shows its usual placeholder instead.
public enum HashPlaceholder: Sendable, Hashable {
    /// A Base64 ThumbHash; its aspect ratio is the original image's.
    case thumbHash(String)
    /// A BlurHash, decoded at 32x32 pixels (the view stretches it).
    case blurHash(String)

    /// The decoded placeholder, or `nil` for a malformed hash.
    package var image: PlaceholderImage? {
        if let cached = Self.cache.value(forKey: self) { return cached.image }
        let decoded = decode()
        Self.cache.setValue(Decoded(image: decoded), forKey: self, cost: decoded.map { $0.rgba.count } ?? 1)
        return decoded
    }

    /// The original image's aspect ratio (width / height) when the hash says (ThumbHash).
    public var aspectRatio: Double? {
        guard case .thumbHash(let string) = self, let ratio = (try? ThumbHash(base64: string))?.aspectRatio,
              ratio.isFinite, ratio > 0 else { return nil }
        return ratio
    }

    /// The size a view paints this placeholder at for a proposal of `width` x `height` points
    /// (`nil`: unspecified): the proposal when it gives both sides (the placeholder stretches
    /// over the view, as the image will); with one side, the other from the original image's
    /// aspect ratio (``aspectRatio``), so a self-sizing row has its final height before the
    /// image arrives and does not jump; `nil` when the view should size it as before (no ratio,
    /// or no side known).
    ///
    /// ```swift
    /// HashPlaceholder.thumbHash(hash).size(proposedWidth: 390, proposedHeight: nil) // 390 x 292.5 for a 4:3 photo
    /// ```
    package func size(proposedWidth width: Double?, proposedHeight height: Double?) -> (width: Double, height: Double)? {
        func known(_ side: Double?) -> Double? {
            guard let side, side.isFinite, side > 0 else { return nil }
            return side
        }
        switch (known(width), known(height)) {
        case let (width?, height?): return (width, height)
        case let (width?, nil): return aspectRatio.map { (width, width / $0) }
        case let (nil, height?): return aspectRatio.map { (height * $0, height) }
        case (nil, nil): return nil
        }
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
