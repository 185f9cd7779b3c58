import Foundation

/// How an image fills a resize's target size.
public enum ImageContentMode: String, Sendable, Hashable, CaseIterable {
    /// The whole image fits inside the target size (letterboxed, aspect ratio kept).
    case aspectFit
    /// The image covers the target size (aspect ratio kept; the overflow is cropped or kept).
    case aspectFill
}

/// Where a resized image is drawn: the canvas (the output size) and the rectangle the source is
/// drawn into, in pixels. Shared by the drawing processors so that sizes are the same on every
/// platform and can be tested without drawing.
package struct ImageResizeGeometry: Sendable, Hashable {
    /// The output bitmap's size.
    package var canvas: PixelSize
    /// Where the whole source image is drawn, in canvas pixels (origin top-left); it extends
    /// past the canvas when an aspect-fill resize crops. This is its left edge.
    package var drawX: Double
    /// The top edge of the drawn source, in canvas pixels (negative when cropped).
    package var drawY: Double
    /// The drawn source's width, in pixels.
    package var drawWidth: Double
    /// The drawn source's height, in pixels.
    package var drawHeight: Double

    /// The geometry of resizing `source` to `target`.
    ///
    /// - Parameters:
    ///   - source: The image's size, in pixels.
    ///   - target: The size to fit or fill, in pixels.
    ///   - contentMode: Fit inside the target, or fill it.
    ///   - upscale: Whether an image smaller than needed is enlarged (`false`: it keeps its size).
    ///   - crop: With `.aspectFill`, whether the output is cropped to the target size (centred).
    package init(source: PixelSize, target: PixelSize, contentMode: ImageContentMode, upscale: Bool, crop: Bool) {
        guard source.width > 0, source.height > 0, target.width > 0, target.height > 0 else {
            canvas = source
            drawX = 0
            drawY = 0
            drawWidth = Double(source.width)
            drawHeight = Double(source.height)
            return
        }
        let scaleX = Double(target.width) / Double(source.width)
        let scaleY = Double(target.height) / Double(source.height)
        var scale = contentMode == .aspectFit ? min(scaleX, scaleY) : max(scaleX, scaleY)
        if !upscale { scale = min(scale, 1) }
        let width = max(1, (Double(source.width) * scale).rounded())
        let height = max(1, (Double(source.height) * scale).rounded())
        drawWidth = width
        drawHeight = height
        if contentMode == .aspectFill && crop {
            let canvasWidth = min(Int(width), target.width)
            let canvasHeight = min(Int(height), target.height)
            canvas = PixelSize(width: canvasWidth, height: canvasHeight)
            drawX = ((Double(canvasWidth) - width) / 2).rounded()
            drawY = ((Double(canvasHeight) - height) / 2).rounded()
        } else {
            canvas = PixelSize(width: Int(width), height: Int(height))
            drawX = 0
            drawY = 0
        }
    }
}
