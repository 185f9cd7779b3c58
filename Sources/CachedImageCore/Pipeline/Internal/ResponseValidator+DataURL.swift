import Foundation

extension ResponseValidator {
    /// The bytes of a `data:` URL, validated like a whole download (its `Content-Type` is the
    /// URL's media type).
    ///
    /// - Throws: ``ImagePipeline/Error/responseTooLarge(url:limit:)`` over `maxBytes`,
    ///   ``ImagePipeline/Error/invalidURL(_:)`` for a malformed URL, or any validation error.
    func validateDataURL(_ url: URL, maxBytes: Int?) throws -> ImageDataResponse {
        let parsed: DataURL
        do {
            parsed = try DataURL(url, maxBytes: maxBytes)
        } catch DataURL.Failure.tooLarge {
            throw ImagePipeline.Error.responseTooLarge(url: url, limit: maxBytes ?? 0)
        } catch {
            throw ImagePipeline.Error.invalidURL(url)
        }
        let info = try validate(parsed.data, url: url, contentType: parsed.mediaType, expectedLength: nil, transfer: .complete)
        // Nothing to keep on disk: the bytes are the URL.
        return ImageDataResponse(data: parsed.data, info: info, source: .disk, bytesDownloaded: 0)
    }
}
