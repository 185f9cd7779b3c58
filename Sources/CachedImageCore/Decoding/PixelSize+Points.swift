import Foundation

extension PixelSize {
    /// The pixels a size in points covers on a display of `scale` pixels per point (3 on most
    /// iPhones): each side times the scale, rounded up, since a fraction of a pixel is still
    /// drawn and a decode smaller than the view would be blurred. The one rule behind every
    /// points-based size (``ImageRequest/targetSize``, the views' automatic sizing).
    ///
    /// A scale that is not positive or not finite counts as 1. `nil` when a side is not
    /// positive, not finite, or beyond any real bitmap.
    ///
    /// ```swift
    /// PixelSize(points: CGSize(width: 100, height: 50), scale: 3)   // 300x150
    /// PixelSize(points: CGSize(width: 33.4, height: 10), scale: 3)  // 101x30
    /// ```
    public init?(points: CGSize, scale: Double) {
        let scale = scale > 0 && scale.isFinite ? scale : 1
        guard let width = Self.pixels(points: Double(points.width), scale: scale),
              let height = Self.pixels(points: Double(points.height), scale: scale) else { return nil }
        self.init(width: width, height: height)
    }

    /// `points` at `scale` in whole pixels, rounded up; `nil` when either is not positive or
    /// not finite, or the result is beyond any real bitmap.
    package static func pixels(points: Double, scale: Double) -> Int? {
        guard points > 0, points.isFinite, scale > 0, scale.isFinite else { return nil }
        let pixels = (points * scale).rounded(.up)
        guard pixels < Double(Int32.max) else { return nil }
        return Int(pixels)
    }
}
