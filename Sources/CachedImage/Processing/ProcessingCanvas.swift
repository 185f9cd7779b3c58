#if canImport(CoreGraphics)
import CachedImageCore
import CoreGraphics
import Foundation
#if canImport(ImageIO)
import ImageIO
#endif

/// The bitmap helpers the drawing processors share: the input as a `CGImage`, and a canvas to
/// draw the output into (in the input's colour space where it can: `ProcessingColorSpace`;
/// 8 bits per channel, premultiplied alpha when needed).
enum ProcessingCanvas {
    /// The image's bitmap: the decoder's `CGImage`, or the kept bytes decoded with ImageIO.
    static func cgImage(of image: DecodedImage, processor: String) throws -> CGImage {
        if let cgImage = image.cgImage {
            return cgImage
        }
        #if canImport(ImageIO)
        if let data = image.data,
           let source = CGImageSourceCreateWithData(data as CFData, nil),
           let cgImage = CGImageSourceCreateImageAtIndex(source, 0, [kCGImageSourceShouldCacheImmediately: true] as CFDictionary) {
            return cgImage
        }
        #endif
        throw ImageProcessingError(processor: processor, reason: "the image has no bitmap to process")
    }

    /// Draws into a new bitmap of `size` (origin top-left for `draw`) and returns the image.
    static func draw(
        size: PixelSize,
        opaque: Bool,
        colorSpace space: CGColorSpace,
        processor: String,
        _ draw: (CGContext, CGRect) -> Void
    ) throws -> CGImage {
        guard size.width > 0, size.height > 0,
              let context = CGContext(
                  data: nil,
                  width: size.width,
                  height: size.height,
                  bitsPerComponent: 8,
                  bytesPerRow: 0,
                  space: space,
                  bitmapInfo: (opaque ? CGImageAlphaInfo.noneSkipFirst : CGImageAlphaInfo.premultipliedFirst).rawValue
                      | CGBitmapInfo.byteOrder32Little.rawValue
              )
        else {
            throw ImageProcessingError(processor: processor, reason: "could not create a \(size) bitmap")
        }
        context.interpolationQuality = .high
        let bounds = CGRect(x: 0, y: 0, width: size.width, height: size.height)
        // Flip, so callers draw with the origin at the top left, like image coordinates.
        context.translateBy(x: 0, y: CGFloat(size.height))
        context.scaleBy(x: 1, y: -1)
        draw(context, bounds)
        guard let output = context.makeImage() else {
            throw ImageProcessingError(processor: processor, reason: "could not make an image from the bitmap")
        }
        return output
    }

    /// Draws `image` into `rect` of a flipped (top-left origin) context, upright.
    static func drawUpright(_ image: CGImage, in rect: CGRect, context: CGContext) {
        context.saveGState()
        context.translateBy(x: rect.minX, y: rect.maxY)
        context.scaleBy(x: 1, y: -1)
        context.draw(image, in: CGRect(origin: .zero, size: rect.size))
        context.restoreGState()
    }

    /// The colour space to render `image`'s processed version in (`ProcessingColorSpace`):
    /// its own where a bitmap can be drawn in it, so Display P3 stays Display P3.
    static func colorSpace(for image: CGImage) -> CGColorSpace {
        let source = image.colorSpace.map { space -> ProcessingColorSpace.SourceSpace in
            let model: ProcessingColorSpace.Model = switch space.model {
            case .rgb: .rgb
            case .monochrome: .monochrome
            case .cmyk: .cmyk
            default: .other
            }
            return ProcessingColorSpace.SourceSpace(
                model: model, isWideGamut: space.isWideGamutRGB, supportsOutput: space.supportsOutput
            )
        }
        switch ProcessingColorSpace.canvas(for: source) {
        case .source:
            if let space = image.colorSpace { return space }
        case .displayP3:
            if let space = CGColorSpace(name: CGColorSpace.displayP3) { return space }
        case .sRGB:
            break
        }
        return CGColorSpace(name: CGColorSpace.sRGB) ?? CGColorSpaceCreateDeviceRGB()
    }

    /// Whether the bitmap has an alpha channel that matters.
    static func isOpaque(_ image: CGImage) -> Bool {
        switch image.alphaInfo {
        case .none, .noneSkipFirst, .noneSkipLast: true
        default: false
        }
    }
}

extension DecodedImage {
    /// The processed bitmap, keeping the original's format (what a disk policy encodes by).
    init(processed cgImage: CGImage, from original: DecodedImage) {
        self.init(cgImage: cgImage, format: original.format)
    }
}
#endif
