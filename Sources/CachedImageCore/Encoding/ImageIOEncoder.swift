#if canImport(ImageIO)
import CoreGraphics
import Foundation
import ImageIO

/// Encodes bitmaps with ImageIO: JPEG for opaque images (at ``jpegQuality``), PNG when the image
/// has transparency (rounded corners, circles), so derived disk entries stay small and exact
/// where it matters.
public struct ImageIOEncoder: ImageEncoding {
    /// Why ImageIO could not encode.
    package enum Failure: Error, Sendable, Hashable {
        /// The image has no bitmap (a decoder that keeps only bytes).
        case noBitmap
        /// ImageIO refused to write the image.
        case encodingFailed
    }

    /// JPEG quality, 0...1. Default: 0.85.
    public var jpegQuality: Double

    /// An encoder writing JPEG at `jpegQuality` (0 to 1).
    public init(jpegQuality: Double = 0.85) {
        self.jpegQuality = jpegQuality
    }

    public func encode(_ image: DecodedImage) throws -> Data {
        guard let cgImage = image.cgImage else { throw Failure.noBitmap }
        let opaque: Bool
        switch cgImage.alphaInfo {
        case .none, .noneSkipFirst, .noneSkipLast: opaque = true
        default: opaque = false
        }
        let type = (opaque ? "public.jpeg" : "public.png") as CFString
        let output = NSMutableData()
        guard let destination = CGImageDestinationCreateWithData(output as CFMutableData, type, 1, nil) else {
            throw Failure.encodingFailed
        }
        let properties: [CFString: Any] = opaque ? [kCGImageDestinationLossyCompressionQuality: jpegQuality] : [:]
        CGImageDestinationAddImage(destination, cgImage, properties as CFDictionary)
        guard CGImageDestinationFinalize(destination) else { throw Failure.encodingFailed }
        return output as Data
    }
}
#endif
