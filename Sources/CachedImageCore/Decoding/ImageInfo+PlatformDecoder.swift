import Foundation
#if canImport(ImageIO)
import ImageIO
#endif

/// Format parity with `AsyncImage`: bytes the core cannot parse are offered to the platform's
/// decoder, so anything ImageIO decodes is shown (and cached) like PNG or JPEG.
extension ImageInfo {
    /// Asks ImageIO whether it recognises `data` as an image (Apple platforms); `nil` elsewhere.
    /// The size comes from ImageIO's header properties, so the decompression-bomb guard still
    /// applies when ImageIO can read them.
    static func sniffWithPlatformDecoder(_ data: Data) -> ImageInfo? {
        #if canImport(ImageIO)
        guard !data.isEmpty,
              let source = CGImageSourceCreateWithData(data as CFData, [kCGImageSourceShouldCache: false] as CFDictionary),
              CGImageSourceGetType(source) != nil,
              CGImageSourceGetCount(source) > 0
        else { return nil }
        let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any]
        let width = (properties?[kCGImagePropertyPixelWidth] as? NSNumber)?.intValue
        let height = (properties?[kCGImagePropertyPixelHeight] as? NSNumber)?.intValue
        return ImageInfo(format: .other, pixelSize: size(width, height))
        #else
        return nil
        #endif
    }

    /// Whether ImageIO has every byte of an ``ImageFormat/other`` image (always `true` where
    /// there is no ImageIO: such images are never recognised there).
    static func platformDecoderIsComplete(_ data: Data) -> Bool {
        #if canImport(ImageIO)
        guard let source = CGImageSourceCreateWithData(data as CFData, [kCGImageSourceShouldCache: false] as CFDictionary)
        else { return false }
        return CGImageSourceGetStatus(source) == .statusComplete
        #else
        return true
        #endif
    }
}
