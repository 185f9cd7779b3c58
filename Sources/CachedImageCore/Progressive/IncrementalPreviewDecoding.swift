import Foundation

/// A decoder that keeps state between the previews of one image: it is handed the same bytes
/// again, longer each time (every scan received so far, without an end marker), and can parse
/// only what is new. ImageIO's incremental source is one (`ImageIOIncrementalDecoder`); without
/// one the pipeline closes each prefix with `EOI` and decodes it as a whole image.
protocol IncrementalPreviewDecoding: AnyObject, Sendable {
    func decodePreview(_ prefix: Data, info: ImageInfo, target: DecodingTarget) throws -> DecodedImage
}
