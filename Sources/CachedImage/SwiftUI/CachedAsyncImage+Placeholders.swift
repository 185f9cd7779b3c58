#if canImport(SwiftUI)
import CachedImageCore
import SwiftUI

extension CachedAsyncImage {
    /// Paints the ThumbHash that came with the image's URL (Base64) while the image loads: a
    /// blurred preview with the image's colours, stretched over the view, until the image or
    /// its first progressive preview arrives. A memory hit never shows it; a malformed hash
    /// shows the usual placeholder. On failure the content's own failure or placeholder view
    /// shows.
    ///
    /// ```swift
    /// CachedAsyncImage(url: post.imageURL) { image in image.resizable().scaledToFill() }
    ///     .placeholder(thumbHash: post.thumbHash)
    /// ```
    public func placeholder(thumbHash: String?) -> CachedAsyncImage {
        var copy = self
        copy.options.hashPlaceholder = thumbHash.map(HashPlaceholder.thumbHash)
        return copy
    }

    /// Paints the BlurHash that came with the image's URL while the image loads, as
    /// ``placeholder(thumbHash:)`` does.
    ///
    /// ```swift
    /// CachedAsyncImage(url: photo.url) { image in image.resizable().scaledToFill() }
    ///     .placeholder(blurHash: photo.blurHash)
    /// ```
    public func placeholder(blurHash: String?) -> CachedAsyncImage {
        var copy = self
        copy.options.hashPlaceholder = blurHash.map(HashPlaceholder.blurHash)
        return copy
    }

    /// Shows a progressive JPEG scan by scan while it downloads, on any link
    /// (``ImageRequest/Options/showProgressivePreviews``); `false` never shows previews
    /// (``ImageRequest/Options/skipProgressivePreviews``). Without this modifier, previews follow
    /// the link: shown once the pipeline has measured a slow one, not on a fast one.
    /// The `AsyncImagePhase` forms get each preview as `.success`, the ``CachedImagePhase`` form
    /// flags it (``CachedImagePhase/isPreview``), and the final image replaces the last preview
    /// with no placeholder in between. For a whole screen, add the option to the
    /// `imageRequestDefaults` environment value instead.
    public func progressivePreviews(_ enabled: Bool = true) -> CachedAsyncImage {
        var copy = self
        copy.options.progressivePreviews = enabled
        return copy
    }

    /// The hash placeholder to paint for `phase`, if any: while there is no image and no
    /// failure. Stretched over a view whose size is known; with one side known (a self-sizing
    /// row), as tall (or wide) as the image will be, from the hash's aspect ratio.
    func hashPlaceholderImage(for phase: CachedImagePhase) -> AnyView? {
        guard let hash = options.hashPlaceholder, phase.showsPlaceholder,
              let cgImage = HashPlaceholderBitmaps.cgImage(for: hash)
        else { return nil }
        let image = Image(decorative: cgImage, scale: 1).resizable()
        if #available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *) {
            return AnyView(HashPlaceholderLayout(placeholder: hash) { image })
        }
        return AnyView(image)
    }
}

/// A hash placeholder's bitmap as a `CGImage`, made once per hash (a view renders often).
enum HashPlaceholderBitmaps {
    private final class Box: @unchecked Sendable {
        let image: CGImage
        init(_ image: CGImage) { self.image = image }
    }

    private static let cache = MemoryCache<HashPlaceholder, Box>(costLimit: 2 * 1024 * 1024, countLimit: 512)

    static func cgImage(for hash: HashPlaceholder) -> CGImage? {
        if let cached = cache.value(forKey: hash) { return cached.image }
        guard let placeholder = hash.image, let image = placeholder.cgImage else { return nil }
        cache.setValue(Box(image), forKey: hash, cost: placeholder.rgba.count)
        return image
    }
}

/// Lays a hash placeholder out as the image will be (`HashPlaceholder.size(proposedWidth:proposedHeight:)`):
/// the proposal when it has both sides, the other side from the aspect ratio when it has one.
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
struct HashPlaceholderLayout: Layout {
    let placeholder: HashPlaceholder

    func sizeThatFits(proposal: ProposedViewSize, subviews: Subviews, cache: inout ()) -> CGSize {
        if let size = placeholder.size(proposedWidth: proposal.width.map(Double.init), proposedHeight: proposal.height.map(Double.init)) {
            return CGSize(width: size.width, height: size.height)
        }
        return subviews.first?.sizeThatFits(proposal) ?? .zero
    }

    func placeSubviews(in bounds: CGRect, proposal: ProposedViewSize, subviews: Subviews, cache: inout ()) {
        subviews.first?.place(at: CGPoint(x: bounds.midX, y: bounds.midY), anchor: .center, proposal: ProposedViewSize(bounds.size))
    }
}
#endif
