import Foundation

/// An image ready to display: what the memory cache holds and what every request returns.
///
/// On Apple platforms ``image`` holds the platform image (a `UIImage`, `NSImage` or `CGImage`)
/// produced by the ImageIO decoder. On other platforms the default decoder keeps the original
/// bytes in ``data`` and leaves ``image`` empty.
public struct DecodedImage: Sendable {
    /// The platform image, if the decoder made one. Cast it to the type your decoder produces.
    public var image: (any Sendable)?
    /// The original encoded bytes, if the decoder kept them.
    public var data: Data?
    /// The container format of the original bytes.
    public var format: ImageFormat
    /// The size of the decoded bitmap, after any downsampling.
    public var pixelSize: PixelSize
    /// The bytes this image occupies in memory; the memory cache's cost.
    public var cost: Int
    /// The size of the image in its bytes, before any downsampling, when the pipeline decoded it
    /// without processors; `nil` otherwise. A view that was not asked for a size lays the image
    /// out at this size (`ImageDisplayScale`), as `AsyncImage` would, however small the
    /// pipeline's cap made the bitmap.
    public var sourcePixelSize: PixelSize?

    /// An image as a decoder returns it: the platform image (or `nil`), the bytes it keeps (or
    /// `nil`), its format, its decoded size and its memory-cache cost in bytes.
    public init(image: (any Sendable)?, data: Data?, format: ImageFormat, pixelSize: PixelSize, cost: Int) {
        self.image = image
        self.data = data
        self.format = format
        self.pixelSize = pixelSize
        self.cost = cost
    }

    /// The memory a decoded bitmap of `size` takes at 4 bytes per pixel.
    public static func bitmapCost(of size: PixelSize) -> Int {
        bitmapCost(of: size, bytesPerPixel: 4)
    }
}
