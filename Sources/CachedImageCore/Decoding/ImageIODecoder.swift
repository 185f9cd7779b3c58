#if canImport(ImageIO)
import CoreGraphics
import Foundation
import ImageIO

/// The default decoder on Apple platforms: ImageIO, off the main thread, at the size the image
/// is shown at.
///
/// - **Downsampling**: the image is decoded straight to the size the request asks for (at least
///   the target in both dimensions for `.aspectFill`, inside it for `.aspectFit`, never
///   upscaled, within the pipeline's cap) with `CGImageSourceCreateThumbnailAtIndex` and
///   `kCGImageSourceThumbnailMaxPixelSize`, never holding the full bitmap: a 4000x3000 photo
///   for a 300x300-point cell (900x900 pixels at 3x) costs about 4 MB instead of 48 MB.
/// - **Decompression**: a downsampled image is decoded when it is created (on the pipeline's
///   decoding thread), so drawing it never decodes on the main thread. An image that nothing
///   bounds (no target size, the cap turned off) is not decoded up front: like `AsyncImage`,
///   ImageIO decodes it when it is first drawn.
/// - **Orientation**: EXIF orientation is applied to the pixels, so the result is always `.up`.
/// - Animated images decode to their first frame.
/// - **HDR**: a request with ``ImageRequest/Options/decodeToHDR`` asks ImageIO for the high
///   dynamic range (iOS 17 and later); the default decode is SDR.
///
/// ```swift
/// let image = try ImageIODecoder().decode(data, info: info, targetPixelSize: PixelSize(width: 900, height: 900))
/// let cgImage = image.cgImage
/// ```
public struct ImageIODecoder: TargetedImageDecoding {
    /// Why ImageIO could not decode the bytes. The pipeline reports it as
    /// ``ImagePipeline/Error/decodingFailed(url:underlying:)`` with this failure as the underlying error.
    package enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// ImageIO does not recognise the bytes.
        case unreadableData
        /// ImageIO recognised the container but could not produce an image from it.
        case noImage

        package var description: String {
            switch self {
            case .unreadableData: "ImageIO does not recognise the bytes as an image"
            case .noImage: "ImageIO recognised the container but could not decode an image from it"
            }
        }
    }

    /// The decoder.
    public init() {}

    /// `true` for JPEG (scaled DCT decoding) and HEIC/AVIF (tiles and embedded thumbnails):
    /// with a target size ImageIO never holds their full-size bitmap, so the pixel limit
    /// applies to the decoded size.
    public func downsamplesWhileDecoding(_ info: ImageInfo) -> Bool {
        [.jpeg, .heic, .avif].contains(info.format)
    }

    /// Decodes to fit inside `targetSize` (aspect fit), or at full size without one.
    public func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
        try decode(data, info: info, target: DecodingTarget(size: targetSize, contentMode: .aspectFit))
    }

    package func decode(_ data: Data, info: ImageInfo, target: DecodingTarget) throws -> DecodedImage {
        guard let source = CGImageSourceCreateWithData(data as CFData, [kCGImageSourceShouldCache: false] as CFDictionary),
              CGImageSourceGetCount(source) > 0
        else {
            throw Failure.unreadableData
        }
        let properties = Self.properties(of: source)
        let size = properties?.orientedSize ?? info.pixelSize
        let maxPixelSize = Self.maxPixelSize(target: target, size: size)
        if target.isUnbounded, properties?.orientation ?? 1 == 1 {
            // Nothing bounds the decode and nothing to rotate: decoded lazily, when drawn.
            let options = Self.withDecodeRequest([kCGImageSourceShouldCacheImmediately: false], for: target)
            guard let cgImage = CGImageSourceCreateImageAtIndex(source, 0, options as CFDictionary) else {
                throw Failure.noImage
            }
            return DecodedImage(cgImage: cgImage, format: info.format)
        }
        var options: [CFString: Any] = [
            kCGImageSourceCreateThumbnailFromImageAlways: true,
            kCGImageSourceCreateThumbnailWithTransform: true,
            kCGImageSourceShouldCacheImmediately: true,
        ]
        if let maxPixelSize {
            options[kCGImageSourceThumbnailMaxPixelSize] = maxPixelSize
        }
        options = Self.withDecodeRequest(options, for: target)
        guard let cgImage = CGImageSourceCreateThumbnailAtIndex(source, 0, options as CFDictionary) else {
            throw Failure.noImage
        }
        return DecodedImage(cgImage: cgImage, format: info.format)
    }

    /// `options` with the target's decode request (``DecodingTarget/imageIODecodeRequest(_:)``:
    /// HDR for an HDR target) where the system has it (``HDRDecodeRequest/system``: iOS 17,
    /// macOS 14, tvOS 17, watchOS 10, visionOS 1). Unchanged for SDR targets and on older systems.
    static func withDecodeRequest(_ options: [CFString: Any], for target: DecodingTarget) -> [CFString: Any] {
        let request = target.imageIODecodeRequest()
        guard !request.isEmpty else { return options }
        var options = options
        for (key, value) in request {
            options[key as CFString] = value as CFString
        }
        return options
    }

    /// The longest side of the decoded image (``DecodingTarget/decodedSize(of:)`` of the
    /// oriented image); `nil` when the image already has that size (never upscale).
    static func maxPixelSize(target: DecodingTarget, size: PixelSize?) -> Int? {
        target.longestSide(forSource: size)
    }

    /// The image's size as displayed (EXIF orientations 5-8 swap width and height) and its orientation.
    private static func properties(of source: CGImageSource) -> (orientedSize: PixelSize, orientation: Int)? {
        guard let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
              let width = (properties[kCGImagePropertyPixelWidth] as? NSNumber)?.intValue,
              let height = (properties[kCGImagePropertyPixelHeight] as? NSNumber)?.intValue
        else {
            return nil
        }
        let orientation = (properties[kCGImagePropertyOrientation] as? NSNumber)?.intValue ?? 1
        let size = (5...8).contains(orientation) ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
        return (size, orientation)
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
