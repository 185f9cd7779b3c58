#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// Each peer's sizing and processor calls as CachedImage writes them, with their units. Sizes and
/// radii are in points, as views are laid out, unless the name says pixels; the view applies its
/// display's scale (elsewhere the main screen's). The comments give the pixels on a 3x screen.
/// Nuke's sizes are points; Kingfisher's processors work in pixels unless the app passes
/// `.scaleFactor(UIScreen.main.scale)`; SDWebImage's thumbnail size and URLImage's are pixels.
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

    /// Nuke `.roundedCorners(radius: 8)`, in points: 8 points, 24 pixels at 3x.
    public static func nukeRoundedCorners(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, processors: [ImageProcessors.RoundedCorners(radius: 8)])
    }

    /// Kingfisher `RoundCornerImageProcessor(cornerRadius: 8)`: Kingfisher's processors work in
    /// pixels unless the app passes `.scaleFactor(UIScreen.main.scale)`, so 8 pixels on any
    /// screen. With `.scaleFactor`, it is `RoundedCorners(radius: 8)` (points).
    public static func kingfisherRoundedCorners(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, processors: [ImageProcessors.RoundedCorners(radiusInPixels: 8)])
    }

    /// Nuke `.gaussianBlur(radius: 8)` hands its radius to Core Image as is, in pixels: 8 pixels
    /// on any screen. So does Kingfisher's `BlurImageProcessor(blurRadius: 8)` without
    /// `.scaleFactor`; with `.scaleFactor(UIScreen.main.scale)` it is `GaussianBlur(radius: 8)`.
    public static func nukeBlur(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, processors: [ImageProcessors.GaussianBlur(radiusInPixels: 8)])
    }

    /// Kingfisher `DownsamplingImageProcessor(size: CGSize(width: 100, height: 100))` with
    /// `.scaleFactor(UIScreen.main.scale)`: the image fits 100x100 points (a 4000x3000 photo
    /// decodes 300x225 pixels at 3x), never the full bitmap. Without `.scaleFactor` the size is
    /// in pixels: `targetPixelSize: PixelSize(width: 100, height: 100)`.
    public static func kingfisherDownsampling(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, targetSize: CGSize(width: 100, height: 100), contentMode: .aspectFit)
    }

    /// Kingfisher `CroppingImageProcessor(size: CGSize(width: 100, height: 100), anchor: CGPoint(x: 0.5, y: 0.5))`
    /// cuts a 100x100 region out of the image, unscaled: a rectangle of the image's pixels, here
    /// centred in a 4000x3000 photo.
    public static func kingfisherCrop(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, processors: [ImageProcessors.Crop(pixelRect: CGRect(x: 1950, y: 1450, width: 100, height: 100))])
    }

    /// SDWebImage `context: [.imageThumbnailPixelSize: CGSize(width: 300, height: 300)]`, in
    /// pixels: 300x300 pixels on any screen.
    public static func sdWebImageThumbnail(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, targetPixelSize: PixelSize(width: 300, height: 300))
    }

    /// URLImage `URLImageOptions(maxPixelSize: CGSize(width: 1200, height: 1200))`, in pixels:
    /// images below without a size of their own, or that fit one, decode within 1200x1200
    /// pixels (a view that fills keeps its own size, within the pipeline's cap).
    public static let urlImageMaximum = ImageRequestDefaults(maximumDecodedPixelSize: PixelSize(width: 1200, height: 1200))

    /// An app that imports Nuke (or Kingfisher) and CachedImage while it migrates: both declare
    /// `ImagePipeline`, `ImageRequest`, `ImagePrefetcher`... Write the module's name in front
    /// where both are imported (`Nuke.ImageRequest` stays Nuke's).
    public static func qualified(_ url: URL) async throws -> CachedImage.ImageResponse {
        try await CachedImage.ImagePipeline.shared.image(for: CachedImage.ImageRequest(url: url))
    }
}

/// Nuke's `LazyImage(url:)` avatar with `.processors([.resize(size: CGSize(width: 64, height: 64),
/// crop: true), .roundedCorners(radius: 8)])`, migrated: the same points, no scale to compute.
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
