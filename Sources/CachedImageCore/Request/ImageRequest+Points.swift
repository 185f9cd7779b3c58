import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ImageRequest {
    /// The size the image is shown at, in points, as SwiftUI and UIKit lay views out: the
    /// pipeline decodes at those points times the display's scale (``targetSize``, in pixels,
    /// is what the engine reads; ``PixelSize/init(points:scale:)`` is the rule).
    ///
    /// The scale is applied for you: `CachedAsyncImage`, `.loadImage(_:into:)`,
    /// `CachedImageViewLoader` and the animated image views apply their own display's scale
    /// (an iPad's external screen at 1x, a window that moves); elsewhere (``ImagePipeline``,
    /// ``ImagePrefetcher``) the main screen's scale applies, and 1 where there is no screen
    /// (Linux). `nil` when the request has no size in points (setting ``targetSize`` clears it).
    ///
    /// ```swift
    /// var request = ImageRequest(url: url)
    /// request.targetSizeInPoints = CGSize(width: 100, height: 100) // 300x300 pixels at 3x
    /// ```
    public var targetSizeInPoints: CGSize? {
        get { pointSize.map { CGSize(width: $0.width, height: $0.height) } }
        set {
            let points = newValue.map { PointSize(width: Double($0.width), height: Double($0.height)) }
            targetSize = points?.pixels(scale: MainScreen.scale ?? 1)
            pointSize = points
        }
    }

    /// Creates a request for a URL shown at `targetSizeInPoints` (``targetSizeInPoints``): the
    /// display's scale turns it into pixels for you.
    ///
    /// ```swift
    /// CachedAsyncImage(request: ImageRequest(url: url, targetSizeInPoints: CGSize(width: 100, height: 100)))
    /// ```
    public init(
        url: URL?,
        cacheKey: String? = nil,
        priority: Priority = .normal,
        targetSizeInPoints: CGSize,
        contentMode: ImageContentMode = .aspectFill,
        options: Options = [],
        constrainedNetworkPolicy: ConstrainedNetworkPolicy = .allow,
        processors: [any ImageProcessing] = []
    ) {
        self.init(
            url: url,
            cacheKey: cacheKey,
            priority: priority,
            contentMode: contentMode,
            options: options,
            constrainedNetworkPolicy: constrainedNetworkPolicy,
            processors: processors
        )
        self.targetSizeInPoints = targetSizeInPoints
    }

    /// This request with its size in points (if any) turned into pixels at `displayScale`: what
    /// a view that knows its display's scale loads. A request sized in pixels, or not at all,
    /// is returned as it is.
    package func resolvingPointSize(displayScale: Double) -> ImageRequest {
        guard let pointSize else { return self }
        var resolved = self
        resolved.targetSize = pointSize.pixels(scale: displayScale)
        resolved.pointSize = pointSize
        return resolved
    }

    /// A size in points, compared and hashed as its two sides.
    struct PointSize: Sendable, Hashable {
        var width: Double
        var height: Double

        /// The pixels it covers at `scale` (``PixelSize/init(points:scale:)``); `nil`: a side
        /// not positive or finite (the request then has no target size: the pipeline's cap).
        func pixels(scale: Double) -> PixelSize? {
            PixelSize(points: CGSize(width: width, height: height), scale: scale)
        }
    }
}
