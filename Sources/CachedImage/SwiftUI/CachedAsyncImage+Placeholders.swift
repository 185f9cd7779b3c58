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

    /// Shows a progressive JPEG scan by scan while it downloads (``ImageRequest/Options/progressivePreviews``):
    /// the `AsyncImagePhase` forms get each preview as `.success`, the ``CachedImagePhase`` form
    /// flags it (``CachedImagePhase/isPreview``), and the final image replaces the last preview
    /// with no placeholder in between. For a whole screen, add the option to the
    /// `imageRequestDefaults` environment value instead.
    public func progressivePreviews(_ enabled: Bool = true) -> CachedAsyncImage {
        var copy = self
        copy.options.progressivePreviews = enabled
        return copy
    }

    /// The hash placeholder to paint for `phase`, if any: while there is no image and no failure.
    func hashPlaceholderImage(for phase: CachedImagePhase) -> Image? {
        guard let hash = options.hashPlaceholder, phase.showsPlaceholder,
              let cgImage = hash.image?.cgImage
        else { return nil }
        return Image(decorative: cgImage, scale: 1).resizable()
    }
}
#endif
