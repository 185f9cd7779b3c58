import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ImageRequest {
    /// The size the image is shown at, in points, as SwiftUI and UIKit lay views out: the
    /// pipeline decodes at those points times the display's scale (``targetPixelSize``, in
    /// pixels, is what the engine reads; ``PixelSize/init(points:scale:)`` is the rule).
    ///
    /// The scale is applied for you: `CachedAsyncImage`, `.loadImage(_:into:)`,
    /// `CachedImageViewLoader` and the animated image views apply their own display's scale
    /// (an iPad's external screen at 1x, a window that moves); elsewhere (``ImagePipeline``,
    /// ``ImagePrefetcher``) the main screen's scale applies, and 1 where there is no screen
    /// (Linux). `nil` when the request has no size in points (setting ``targetPixelSize`` clears it).
    ///
    /// ```swift
    /// var request = ImageRequest(url: url)
    /// request.targetSize = CGSize(width: 100, height: 100) // 300x300 pixels at 3x
    /// ```
    public var targetSize: CGSize? {
        get { pointSize.map { CGSize(width: $0.width, height: $0.height) } }
        set {
            let points = newValue.map { PointSize(width: Double($0.width), height: Double($0.height)) }
            targetPixelSize = points?.pixels(scale: MainScreen.scale ?? 1)
            pointSize = points
        }
    }

    /// This request with its size in points (if any) turned into pixels at `displayScale`: what
    /// a view that knows its display's scale loads, with its processors given lengths in points
    /// (``DisplayScaledProcessing``) resolved at that scale too. A size in pixels is kept.
    package func resolvingPointSize(displayScale: Double) -> ImageRequest {
        var resolved = self
        if !processorChain.isEmpty, let chain = processorChain.resolved(displayScale: displayScale) {
            resolved.processorChain = chain
        }
        guard let pointSize else { return resolved }
        resolved.targetPixelSize = pointSize.pixels(scale: displayScale)
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
