/// How many pixels of a loaded image make one point on screen: the rule `CachedAsyncImage` and
/// `CachedImageViewLoader` share, so an image lays out at the same size in SwiftUI and UIKit.
///
/// - An explicit scale (`CachedAsyncImage(url:scale:)`, an `@2x` asset) wins: pixels divided by
///   it, as with `AsyncImage`.
/// - Otherwise a request with a `targetSize` was sized in pixels for the screen, so it lays out
///   in points at the display's scale: a 600x600-pixel target is 200x200 points on a 3x screen.
/// - Otherwise 1, as `AsyncImage`.
public enum ImageDisplayScale {
    /// The scale for an image loaded for `request` (the caller's own request, before any
    /// subtree defaults), shown on a display of `displayScale` pixels per point.
    public static func scale(for request: ImageRequest, explicitScale: Double?, displayScale: Double) -> Double {
        if let explicitScale, explicitScale > 0, explicitScale.isFinite { return explicitScale }
        if request.targetSize != nil, displayScale > 0, displayScale.isFinite { return displayScale }
        return 1
    }
}
