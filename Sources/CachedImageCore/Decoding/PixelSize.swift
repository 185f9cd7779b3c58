/// A size in pixels (not points): what an image's header says, or the most a request wants decoded.
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// A size of `width` by `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Width over height (`0` for an empty size): a view's height for a width is
    /// `width / aspectRatio`.
    public var aspectRatio: Double {
        height > 0 ? Double(width) / Double(height) : 0
    }

    /// `width * height`, saturating instead of overflowing.
    public var pixelCount: Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : product
    }

    public var description: String { "\(width)x\(height)" }
}
