#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// Each peer's sizing and processor calls as CachedImage writes them, with their units. Sizes and
/// radii are in points, as views are laid out, unless the name says pixels; the view applies its
/// display's scale (elsewhere the main screen's). The comments give the pixels on a 3x screen.
public enum MigrationExamples {
    /// Nuke `ImageRequest(url:processors: [.resize(size: CGSize(width: 100, height: 100))])`,
    /// in points: the same points here, 300x300 pixels at 3x.
    public static func nukeResize(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, processors: [ImageProcessors.Resize(size: CGSize(width: 100, height: 100))])
    }

    /// Nuke `.resize(size: CGSize(width: 512, height: 512), unit: .pixels)`: 512x512 pixels on
    /// any screen.
    public static func nukeResizeInPixels(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, processors: [ImageProcessors.Resize(pixelSize: PixelSize(width: 512, height: 512))])
    }

    /// Nuke `.roundedCorners(radius: 8)` and Kingfisher `RoundCornerImageProcessor(cornerRadius: 8)`,
    /// both in points: 8 points, 24 pixels at 3x.
    public static func roundedCorners(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, processors: [ImageProcessors.RoundedCorners(radius: 8)])
    }

    /// Nuke `.gaussianBlur(radius: 8)` hands its radius to Core Image as is, in pixels: 8 pixels
    /// on any screen. Kingfisher `BlurImageProcessor(blurRadius: 8)` is in points (24 pixels
    /// at 3x): `GaussianBlur(radius: 8)`.
    public static func nukeBlur(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, processors: [ImageProcessors.GaussianBlur(radiusInPixels: 8)])
    }

    /// Kingfisher `DownsamplingImageProcessor(size: CGSize(width: 100, height: 100))`, in points:
    /// decoded at 300x300 pixels at 3x, never the full bitmap.
    public static func kingfisherDownsampling(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, targetSize: CGSize(width: 100, height: 100))
    }

    /// Kingfisher `CroppingImageProcessor(size: CGSize(width: 100, height: 100))` (points, centred):
    /// filled and cropped to 100x100 points, 300x300 pixels at 3x.
    public static func kingfisherCrop(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, processors: [ImageProcessors.Resize(size: CGSize(width: 100, height: 100), crop: true)])
    }

    /// SDWebImage `context: [.imageThumbnailPixelSize: CGSize(width: 300, height: 300)]`, in
    /// pixels: 300x300 pixels on any screen.
    public static func sdWebImageThumbnail(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, targetPixelSize: PixelSize(width: 300, height: 300))
    }

    /// URLImage `URLImageOptions(maxPixelSize: CGSize(width: 1200, height: 1200))`, in pixels: no
    /// image below decodes larger than 1200x1200 pixels.
    public static let urlImageMaximum = ImageRequestDefaults(maximumDecodedPixelSize: PixelSize(width: 1200, height: 1200))

    /// An app that imports Nuke (or Kingfisher) and CachedImage while it migrates: both declare
    /// `ImagePipeline`, `ImageRequest`, `ImagePrefetcher`... Write the module's name in front
    /// where both are imported (`Nuke.ImageRequest` stays Nuke's).
    public static func qualified(_ url: URL) async throws -> CachedImage.ImageResponse {
        try await CachedImage.ImagePipeline.shared.image(for: CachedImage.ImageRequest(url: url))
    }
}

/// Nuke's `LazyImage(url:) { state in ... }.processors([.resize(width: 64)])` row, migrated: the
/// same points, no scale to compute.
@MainActor
public struct MigratedAvatarRow: View {
    let url: URL?

    public init(url: URL?) {
        self.url = url
    }

    public var body: some View {
        CachedAsyncImage(url: url) { image in
            image.resizable().scaledToFill()
        } placeholder: {
            Color.gray.opacity(0.2)
        }
        .processors([ImageProcessors.Resize(size: CGSize(width: 64, height: 64), crop: true), ImageProcessors.RoundedCorners(radius: 8)])
        .frame(width: 64, height: 64)
    }
}
#endif
