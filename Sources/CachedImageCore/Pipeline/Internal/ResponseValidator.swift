import Foundation

/// Decides whether a downloaded body may go any further: a complete image of a known format
/// within the pixel limit. Nothing it refuses reaches a decoder or the disk cache.
struct ResponseValidator: Sendable {
    /// Images whose header declares more pixels are refused (decompression bombs).
    var maxPixelCount: Int

    /// The body's format and size, or the typed error that says what is wrong with it.
    ///
    /// - Parameters:
    ///   - contentType: The response's `Content-Type`, named in ``ImagePipeline/Error/notAnImage(url:contentType:)``.
    ///   - expectedLength: The `Content-Length` the server announced for an unencoded body.
    func validate(_ data: Data, url: URL, contentType: String?, expectedLength: Int?) throws -> ImageInfo {
        if data.isEmpty {
            throw ImagePipeline.Error.emptyResponse(url: url)
        }
        if let expectedLength, data.count < expectedLength {
            throw ImagePipeline.Error.truncatedResponse(url: url, received: data.count, expected: expectedLength)
        }
        guard let info = ImageInfo(data: data) else {
            throw ImagePipeline.Error.notAnImage(url: url, contentType: contentType)
        }
        if let size = info.pixelSize, size.pixelCount > maxPixelCount {
            throw ImagePipeline.Error.imageTooLarge(url: url, size: size, maxPixelCount: maxPixelCount)
        }
        guard ImageInfo.isComplete(data, format: info.format) else {
            // The transfer ended normally with every announced byte (a short body is caught
            // above, a dropped connection by the loader): the server sent a broken container.
            throw ImagePipeline.Error.invalidImage(url: url, format: info.format, reason: Self.incompleteReason(info.format))
        }
        return info
    }

    /// What ``ImageInfo/isComplete(_:format:)`` found missing, in words.
    static func incompleteReason(_ format: ImageFormat) -> String {
        switch format {
        case .png: "the chunk chain does not reach a valid IEND chunk"
        case .jpeg: "the marker segments do not reach an end-of-image marker (FF D9)"
        case .gif: "the block chain does not reach the trailer (0x3B)"
        case .webp: "the RIFF size does not match the body length"
        case .heic, .avif: "the box sizes or item extents do not match the body length"
        case .bmp: "the pixel data ends before the size the header declares"
        case .ico: "an image entry points past the end of the body"
        case .tiff, .other: "the container is incomplete"
        }
    }
}
