import Foundation

/// Turns validated image bytes into a ``DecodedImage``. The pipeline calls it off the main
/// thread, once per distinct (bytes, target size), after it has checked that the bytes are an
/// image of a known format (or one a registered decoder takes, ``ImageDecoderRegistry``)
/// within the pixel limit, with nothing decodable missing. A container whose end is missing
/// or sloppy (no `IEND` or `EOI`) reaches the decoder when the transfer was known to be
/// complete: the decoder decides, and its error becomes
/// ``ImagePipeline/Error/decodingFailed(url:underlying:)``.
///
/// Plug in your own to support more formats or to post-process images:
///
/// ```swift
/// struct GrayscaleDecoder: ImageDecoding {
///     func decode(_ data: Data, info: ImageInfo, targetPixelSize: PixelSize?) throws -> DecodedImage { ... }
/// }
/// var configuration = ImagePipeline.Configuration()
/// configuration.decoder = GrayscaleDecoder()
/// ```
public protocol ImageDecoding: Sendable {
    /// Decodes `data`, downsampling to fit inside `targetSize` pixels when one is given (never
    /// upscaling).
    ///
    /// - Throws: Any error; the pipeline reports it as ``ImagePipeline/Error/decodingFailed(url:underlying:)``,
    ///   keeping the error.
    func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage

    /// Whether decoding these bytes takes long enough (milliseconds) that the pipeline should
    /// run it on a decoding thread of its own rather than hold one of Swift concurrency's
    /// shared threads. Default: images of 1 megapixel or more (or 512 KB when the header gives
    /// no size).
    func isExpensive(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) -> Bool

    /// Whether ``decode(_:info:targetPixelSize:)`` with a target size produces the smaller image
    /// without ever holding the full-size bitmap (ImageIO's thumbnails for JPEG and HEIF).
    /// Then the pixel limit applies to the decoded size instead of the source's. Default: `false`.
    func downsamplesWhileDecoding(_ info: ImageInfo) -> Bool
}

extension ImageDecoding {
    public func isExpensive(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) -> Bool {
        guard let size = info.pixelSize else { return data.count >= 512 * 1024 }
        return size.pixelCount >= 1_000_000
    }

    public func downsamplesWhileDecoding(_ info: ImageInfo) -> Bool { false }
}

/// A decoder that decodes at a ``DecodingTarget``'s size (fill or fit, never upscaled, within
/// the pipeline's cap) rather than only to fit a size: the package's own decoders
/// (``ImageIODecoder``, ``HeaderImageDecoder``). The pipeline decodes through
/// ``ImageDecoding/decode(_:info:target:)``, which calls a decoder that is not one with the bounds
/// whose aspect fit gives the target's size.
package protocol TargetedImageDecoding: ImageDecoding {
    /// Decodes `data` at the size `target` asks for (``DecodingTarget/decodedSize(of:)``).
    func decode(_ data: Data, info: ImageInfo, target: DecodingTarget) throws -> DecodedImage
}

extension ImageDecoding {
    /// Decodes `data` at the size `target` asks for: through
    /// ``TargetedImageDecoding/decode(_:info:target:)`` when this decoder is one, otherwise with
    /// ``decode(_:info:targetPixelSize:)`` and the bounds whose aspect fit gives that size
    /// (``DecodingTarget/fittingBounds(for:)``, from the header's size). This is what the
    /// pipeline calls.
    package func decode(_ data: Data, info: ImageInfo, target: DecodingTarget) throws -> DecodedImage {
        if let targeted = self as? any TargetedImageDecoding {
            return try targeted.decodeAtTarget(data, info: info, target: target)
        }
        return try decode(data, info: info, targetPixelSize: target.fittingBounds(for: info.pixelSize))
    }
}

extension TargetedImageDecoding {
    /// The requirement, named apart from ``ImageDecoding/decode(_:info:target:)`` for the dispatch.
    fileprivate func decodeAtTarget(_ data: Data, info: ImageInfo, target: DecodingTarget) throws -> DecodedImage {
        try decode(data, info: info, target: target)
    }
}

/// The decoder used where no platform decoder exists: it keeps the original bytes and reports
/// the size a real decoder would produce (the header's size at the ``DecodingTarget``), so
/// memory-cache costs match what the image would take on screen (at an HDR target's 8 bytes per
/// pixel, what ImageIO's HDR decode of an HDR photo holds).
package struct HeaderImageDecoder: TargetedImageDecoding {
    /// The decoder.
    package init() {}

    /// Never: it reads only the header.
    package func isExpensive(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) -> Bool { false }

    package func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
        try decode(data, info: info, target: DecodingTarget(size: targetSize, contentMode: .aspectFit))
    }

    package func decode(_ data: Data, info: ImageInfo, target: DecodingTarget) throws -> DecodedImage {
        guard let size = info.pixelSize else {
            // The format is known but its header did not say how large it is.
            return DecodedImage(image: nil, data: data, format: info.format, pixelSize: PixelSize(width: 0, height: 0), cost: data.count)
        }
        let decodedSize = target.decodedSize(of: size)
        return DecodedImage(
            image: nil,
            data: data,
            format: info.format,
            pixelSize: decodedSize,
            cost: max(DecodedImage.bitmapCost(of: decodedSize, bytesPerPixel: target.bytesPerPixel), data.count)
        )
    }
}

extension PixelSize {
    /// The largest size with this aspect ratio that fits inside `bounds`; never larger than self.
    public func fitted(into bounds: PixelSize) -> PixelSize {
        guard width > 0, height > 0, bounds.width > 0, bounds.height > 0 else { return self }
        let scale = min(Double(bounds.width) / Double(width), Double(bounds.height) / Double(height), 1)
        guard scale < 1 else { return self }
        return PixelSize(
            width: max(1, Int((Double(width) * scale).rounded())),
            height: max(1, Int((Double(height) * scale).rounded()))
        )
    }
}
