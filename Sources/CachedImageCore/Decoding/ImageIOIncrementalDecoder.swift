#if canImport(ImageIO)
import CoreGraphics
import Foundation
import ImageIO

/// The previews of one progressive JPEG on Apple platforms: one incremental ImageIO source
/// (`CGImageSourceCreateIncremental`) fed the growing prefix (`CGImageSourceUpdateData`), so
/// ImageIO parses each byte once, and each preview decoded from it at the request's size
/// (`CGImageSourceCreateThumbnailAtIndex` with `kCGImageSourceThumbnailMaxPixelSize`), like
/// ``ImageIODecoder``. The pipeline runs it on its decoding queue, admitted by the bitmap's
/// bytes (the decoding memory budget). One per image job; calls are serialised.
final class ImageIOIncrementalDecoder: IncrementalPreviewDecoding, @unchecked Sendable {
    private let lock = Lock()
    private let source = CGImageSourceCreateIncremental(nil)

    func decodePreview(_ prefix: Data, info: ImageInfo, target: DecodingTarget) throws -> DecodedImage {
        try lock.withLock {
            CGImageSourceUpdateData(source, prefix as CFData, false)
            guard CGImageSourceGetCount(source) > 0 else { throw ImageIODecoder.Failure.unreadableData }
            var options: [CFString: Any] = [
                kCGImageSourceCreateThumbnailFromImageAlways: true,
                kCGImageSourceCreateThumbnailWithTransform: true,
                kCGImageSourceShouldCacheImmediately: true,
            ]
            if let maxPixelSize = ImageIODecoder.maxPixelSize(target: target, size: info.pixelSize) {
                options[kCGImageSourceThumbnailMaxPixelSize] = maxPixelSize
            }
            guard let cgImage = CGImageSourceCreateThumbnailAtIndex(source, 0, options as CFDictionary) else {
                throw ImageIODecoder.Failure.noImage
            }
            return DecodedImage(cgImage: cgImage, format: info.format)
        }
    }
}
#endif
