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
            throw ImagePipeline.Error.truncatedResponse(url: url, received: data.count, expected: expectedLength)
        }
        return info
    }
}
