#if canImport(ImageIO)
import CoreGraphics
import Foundation
import ImageIO

/// The default decoder on Apple platforms: ImageIO, off the main thread, into a bitmap that is
/// ready to draw.
///
/// - **Downsampling**: with a target size, the image is decoded straight to that size with
///   `CGImageSourceCreateThumbnailAtIndex` and `kCGImageSourceThumbnailMaxPixelSize`, never
///   holding the full bitmap: a 4000x3000 photo shown at 300x300 points (900x900 pixels at 3x)
///   costs about 3 MB instead of 48 MB.
/// - **Decompression up front**: `kCGImageSourceShouldCacheImmediately` makes ImageIO decode
///   when the image is created (on the pipeline's background task), so drawing it on the main
///   thread never decodes.
/// - **Orientation**: EXIF orientation is applied to the pixels, so the result is always `.up`.
/// - Animated images decode to their first frame.
///
/// ```swift
/// let image = try ImageIODecoder().decode(data, info: info, targetSize: PixelSize(width: 900, height: 900))
/// let cgImage = image.cgImage
/// ```
public struct ImageIODecoder: ImageDecoding {
    /// Why ImageIO could not decode the bytes. The pipeline reports it as
    /// ``ImagePipeline/Error/decodingFailed(url:underlying:)`` with this failure as the underlying error.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// ImageIO does not recognise the bytes.
        case unreadableData
        /// ImageIO recognised the container but could not produce an image from it.
        case noImage

        public var description: String {
            switch self {
            case .unreadableData: "ImageIO does not recognise the bytes as an image"
            case .noImage: "ImageIO recognised the container but could not decode an image from it"
            }
        }
    }

    public init() {}

    /// `true` for JPEG (scaled DCT decoding) and HEIC/AVIF (tiles and embedded thumbnails):
    /// with a target size ImageIO never holds their full-size bitmap, so the pixel limit
    /// applies to the decoded size.
    public func downsamplesWhileDecoding(_ info: ImageInfo) -> Bool {
        [.jpeg, .heic, .avif].contains(info.format)
    }

    public func decode(_ data: Data, info: ImageInfo, targetSize: PixelSize?) throws -> DecodedImage {
        guard let source = CGImageSourceCreateWithData(data as CFData, [kCGImageSourceShouldCache: false] as CFDictionary),
              CGImageSourceGetCount(source) > 0
        else {
            throw Failure.unreadableData
        }
        var options: [CFString: Any] = [
            kCGImageSourceCreateThumbnailFromImageAlways: true,
            kCGImageSourceCreateThumbnailWithTransform: true,
            kCGImageSourceShouldCacheImmediately: true,
        ]
        if let targetSize, let maxPixelSize = maxPixelSize(source: source, info: info, targetSize: targetSize) {
            options[kCGImageSourceThumbnailMaxPixelSize] = maxPixelSize
        }
        guard let cgImage = CGImageSourceCreateThumbnailAtIndex(source, 0, options as CFDictionary) else {
            throw Failure.noImage
        }
        return DecodedImage(cgImage: cgImage, format: info.format)
    }

    /// The longest side of the oriented image fitted inside `targetSize`; `nil` when the image
    /// already fits (never upscale).
    private func maxPixelSize(source: CGImageSource, info: ImageInfo, targetSize: PixelSize) -> Int? {
        guard let size = orientedSize(source: source) ?? info.pixelSize else {
            return max(targetSize.width, targetSize.height)
        }
        let fitted = size.fitted(into: targetSize)
        guard fitted != size else { return nil }
        return max(fitted.width, fitted.height)
    }

    /// The image's size as displayed: EXIF orientations 5-8 swap width and height.
    private func orientedSize(source: CGImageSource) -> PixelSize? {
        guard let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
              let width = (properties[kCGImagePropertyPixelWidth] as? NSNumber)?.intValue,
              let height = (properties[kCGImagePropertyPixelHeight] as? NSNumber)?.intValue
        else {
            return nil
        }
        let orientation = (properties[kCGImagePropertyOrientation] as? NSNumber)?.intValue ?? 1
        return (5...8).contains(orientation) ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
    }
}

/// Carries an immutable `CGImage` across concurrency domains. (Older SDKs do not mark `CGImage`
/// `Sendable`; a `CGImage` never changes after creation, so sharing it is safe.)
struct SendableCGImage: @unchecked Sendable {
    let cgImage: CGImage
}

extension DecodedImage {
    /// Wraps a decoded bitmap; its cost is the bitmap's bytes.
    public init(cgImage: CGImage, format: ImageFormat) {
        self.init(
            image: SendableCGImage(cgImage: cgImage),
            data: nil,
            format: format,
            pixelSize: PixelSize(width: cgImage.width, height: cgImage.height),
            cost: cgImage.bytesPerRow * cgImage.height
        )
    }

    /// The bitmap, when the image was decoded by ``ImageIODecoder`` (or made with
    /// ``init(cgImage:format:)``).
    public var cgImage: CGImage? {
        (image as? SendableCGImage)?.cgImage
    }
}
#endif
