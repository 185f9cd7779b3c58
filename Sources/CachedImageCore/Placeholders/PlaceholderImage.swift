/// A small bitmap decoded from a placeholder hash (``ThumbHash``, ``BlurHash``): 8-bit RGBA,
/// row by row, top to bottom, colour not premultiplied by alpha.
///
/// It is meant to be stretched (with smoothing) over the view the image will fill: a
/// ThumbHash decodes to at most 32 pixels on its longer side, a BlurHash to the size asked.
/// On Apple platforms the `CachedImage` module turns it into a `CGImage`.
package struct PlaceholderImage: Sendable, Hashable {
    /// Width in pixels.
    package let width: Int
    /// Height in pixels.
    package let height: Int
    /// `width * height * 4` bytes: red, green, blue and alpha of each pixel, row by row.
    package let rgba: [UInt8]

    /// Wraps `rgba`, which must hold `width * height * 4` bytes.
    package init(width: Int, height: Int, rgba: [UInt8]) {
        precondition(width >= 0 && height >= 0 && rgba.count == width * height * 4, "rgba must hold width * height * 4 bytes")
        self.width = width
        self.height = height
        self.rgba = rgba
    }

    /// The size in pixels.
    package var pixelSize: PixelSize { PixelSize(width: width, height: height) }

    /// The pixel at (`x`, `y`), from the top left.
    package func pixel(x: Int, y: Int) -> PlaceholderColor {
        let index = (y * width + x) * 4
        return PlaceholderColor(
            red: Double(rgba[index]) / 255, green: Double(rgba[index + 1]) / 255,
            blue: Double(rgba[index + 2]) / 255, alpha: Double(rgba[index + 3]) / 255
        )
    }

    /// Whether any pixel is not fully opaque.
    package var hasAlpha: Bool {
        stride(from: 3, to: rgba.count, by: 4).contains { rgba[$0] != 255 }
    }
}

/// A colour with red, green, blue and alpha components from 0 to 1, not premultiplied.
package struct PlaceholderColor: Sendable, Hashable {
    /// Red, 0 to 1.
    package var red: Double
    /// Green, 0 to 1.
    package var green: Double
    /// Blue, 0 to 1.
    package var blue: Double
    /// Opacity, 0 (transparent) to 1.
    package var alpha: Double

    /// A colour of the given components, opaque by default.
    package init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }
}
