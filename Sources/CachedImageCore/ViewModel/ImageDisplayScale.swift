/// How many pixels of a loaded image make one point on screen: the rule `CachedAsyncImage`,
/// `CachedImageViewLoader`, `CachedAnimatedImage` and `CachedAnimatedImageView` share, so an
/// image lays out at the same size in SwiftUI and UIKit, still or animated.
///
/// - An explicit scale (`CachedAsyncImage(url:scale:)`, an `@2x` asset) wins: pixels divided by
///   it, as with `AsyncImage`.
/// - Otherwise a request with a size of its own (a target size, or a leading resize processor)
///   was sized in pixels for the screen, so it lays out in points at the display's scale: a
///   600x600-pixel target is 200x200 points on a 3x screen.
/// - Otherwise 1, as `AsyncImage`.
package enum ImageDisplayScale {
    /// `pointScale` (from ``scale(for:explicitScale:displayScale:)``) for `image`, keeping its
    /// natural size when `request` asked for none: an image the pipeline's cap
    /// (``ImagePipeline/Configuration/maximumDecodedPixelSize``) or a subtree default decoded
    /// smaller than its source is laid out at the source's size, as `AsyncImage` lays it out.
    /// A request with a `targetSize` keeps `pointScale`.
    ///
    /// ```swift
    /// // A 4000x3000 photo decoded to 2000x1500 by the cap: 4000x3000 points at scale 1.
    /// ImageDisplayScale.scale(1, for: image, request: ImageRequest(url: url))  // 0.5
    /// ```
    package static func scale(_ pointScale: Double, for image: DecodedImage, request: ImageRequest) -> Double {
        scale(pointScale, decoded: image.pixelSize, source: image.sourcePixelSize, request: request)
    }

    /// ``scale(_:for:request:)`` for a bitmap of `decoded` pixels made from an image of `source`
    /// pixels (`nil`: unknown): an animation's frames share their first frame's source, so
    /// `CachedAnimatedImage` and `CachedAnimatedImageView` lay them out as `CachedAsyncImage`
    /// lays out a still image.
    package static func scale(_ pointScale: Double, decoded decodedSize: PixelSize, source: PixelSize?, request: ImageRequest) -> Double {
        guard !request.hasOwnDecodeSize, let source else { return pointScale }
        // Longer sides: ImageIO applies EXIF orientation to the bitmap, not to the header's size.
        let decoded = max(decodedSize.width, decodedSize.height)
        let original = max(source.width, source.height)
        guard decoded > 0, original > decoded else { return pointScale }
        return pointScale * Double(decoded) / Double(original)
    }

    /// The scale to show `response` at in an image view on a display of `displayScale` pixels
    /// per point (no explicit scale): ``scale(for:explicitScale:displayScale:)`` then
    /// ``scale(_:for:request:)``, what `UIImage(cgImage:scale:)` / `NSImage(size:)` take.
    package static func scale(showing response: ImageResponse, displayScale: Double) -> Double {
        let pointScale = scale(for: response.request, explicitScale: nil, displayScale: displayScale)
        return scale(pointScale, for: response.image, request: response.request)
    }

    /// The scale for an image loaded for `request` (the caller's own request, before any
    /// subtree defaults), shown on a display of `displayScale` pixels per point.
    package static func scale(for request: ImageRequest, explicitScale: Double?, displayScale: Double) -> Double {
        if let explicitScale, explicitScale > 0, explicitScale.isFinite { return explicitScale }
        if request.hasOwnDecodeSize, displayScale > 0, displayScale.isFinite { return displayScale }
        return 1
    }
}
