import Foundation

/// Decides whether a body may go any further: a recognised image within the pixel limit whose
/// container has nothing missing that the transfer cannot vouch for. Nothing it refuses
/// reaches a decoder or the disk cache.
///
/// The transfer decides completeness when it can: when the HTTP layer knows the whole body
/// arrived (a `Content-Length` that matched, a terminated chunked body, a file, a `data:` URL),
/// a container whose end is missing or sloppy (no `IEND`, trailer or `EOI`, a wrong BMP or
/// RIFF size) goes to the decoder, which decides, as browsers' decoders do. When the body may
/// have been cut (a close-delimited body), such a container is refused as truncated. A body
/// with nothing decodable in it is refused either way.
struct ResponseValidator: Sendable {
    /// Whether the transfer itself vouches that the body is whole.
    enum Transfer: Sendable, Equatable {
        /// Every byte arrived: the length was announced and matched, the chunked encoding was
        /// terminated, or the bytes did not travel (a file, a `data:` URL).
        case complete
        /// The body ended when the connection closed, which a cut looks like too; or nothing
        /// says how the bytes were obtained (an app's own bytes for a custom key).
        case mayBeCut
    }

    var limit: PixelLimit
    var registry: ImageDecoderRegistry
    var decoder: any ImageDecoding

    init(maximumPixelCount: Int, registry: ImageDecoderRegistry = ImageDecoderRegistry(), decoder: any ImageDecoding = HeaderImageDecoder()) {
        self.limit = PixelLimit(maximumPixelCount: maximumPixelCount)
        self.registry = registry
        self.decoder = decoder
    }

    /// The body's format and size, or the typed error that says what is wrong with it.
    ///
    /// - Parameters:
    ///   - contentType: The response's `Content-Type`, named in ``ImagePipeline/Error/notAnImage(url:contentType:)``
    ///     and matched against registered decoders' MIME types.
    ///   - expectedLength: The `Content-Length` the server announced for an unencoded body.
    ///   - transfer: Whether the transfer vouches that the body is whole.
    func validate(
        _ data: Data, url: URL, contentType: String?, expectedLength: Int?, transfer: Transfer
    ) throws -> ImageInfo {
        if data.isEmpty {
            throw ImagePipeline.Error.emptyResponse(url: url)
        }
        if let expectedLength, data.count < expectedLength {
            throw ImagePipeline.Error.truncatedResponse(url: url, received: data.count, expected: expectedLength)
        }
        guard let info = registry.info(for: data, contentType: contentType) else {
            throw ImagePipeline.Error.notAnImage(url: url, contentType: contentType)
        }
        // A registered decoder's bytes: the decoder judges them, under the limit (PixelLimit).
        guard info.registeredDecoder == nil else { return info }
        let sourceLimit = limit.sourceLimit(downsamples: decoder.downsamplesWhileDecoding(info))
        if let size = info.decodingSize, size.pixelCount > sourceLimit {
            throw ImagePipeline.Error.imageTooLarge(url: url, size: size, maximumPixelCount: sourceLimit)
        }
        var missing: String?
        switch ImageInfo.containerCheck(data, format: info.format) {
        case .complete:
            break
        case .broken(let reason):
            throw ImagePipeline.Error.invalidImage(url: url, format: info.format, reason: reason)
        case .unterminated(let reason):
            guard transfer == .complete else {
                // Nothing said how long the body was, and it ends as a cut one would.
                throw ImagePipeline.Error.truncatedResponse(url: url, received: data.count, expected: nil)
            }
            missing = reason
        }
        if info.decodingSize == nil, info.format != .other {
            // A size the limit cannot check is never waved through.
            let because = missing.map { " (\($0))" } ?? ""
            throw ImagePipeline.Error.invalidImage(url: url, format: info.format, reason: "the header does not give the image's size\(because)")
        }
        return info
    }
}
