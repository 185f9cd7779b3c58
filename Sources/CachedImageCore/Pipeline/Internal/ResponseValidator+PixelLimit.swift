import Foundation

/// The pixel limit (``ImagePipeline/Configuration/maximumPixelCount``) as one rule: it bounds what
/// is decoded. A decoder that downsamples while it decodes (``ImageDecoding/downsamplesWhileDecoding(_:)``:
/// ImageIO's thumbnails for JPEG and HEIF) never holds the full bitmap, so for it the limit
/// applies to the decoded size, and the source may be up to ``sourceFactor`` times larger;
/// other decoders hold the source, so the limit applies to the source size.
struct PixelLimit: Sendable, Hashable {
    /// How much larger than the limit a source may be when the decoder downsamples while
    /// decoding: bounds the work (a 200-megapixel photo shown as a thumbnail passes at the
    /// default 64-megapixel limit; a 20-gigapixel header does not).
    static let sourceFactor = 4

    var maximumPixelCount: Int

    /// The most source pixels a body may declare for any request: the data stage's check,
    /// shared by every target size of the same bytes.
    func sourceLimit(downsamples: Bool) -> Int {
        downsamples ? maximumPixelCount.multipliedReportingOverflow(by: Self.sourceFactor).partialValue : maximumPixelCount
    }

    /// The most source pixels a download may declare in its first bytes (the loader's early
    /// check, ``DataLoadLimits/maximumPixelCount``): the source limit of the most lenient format
    /// `decoder` takes.
    func earlyLimit(for decoder: any ImageDecoding) -> Int {
        let downsamplesAny = ImageFormat.allCases.contains { decoder.downsamplesWhileDecoding(ImageInfo(format: $0, pixelSize: nil)) }
        return sourceLimit(downsamples: downsamplesAny)
    }

    /// What to decode for one request.
    enum Plan: Equatable {
        /// Decode, fitting inside this target size (`nil`: full size).
        case decode(targetSize: PixelSize?)
        /// Decode to at most this size and check the result: the bytes do not say their size.
        case decodeUnsized(targetSize: PixelSize)
        /// Over the limit: refuse, naming this size.
        case refuse(PixelSize)
    }

    /// The plan for an image of `info` requested at `targetSize`.
    func plan(for info: ImageInfo, targetSize: PixelSize?, downsamples: Bool) -> Plan {
        guard let source = info.decodingSize else {
            let side = Int(Double(maximumPixelCount).squareRoot())
            let bound = PixelSize(width: side, height: side)
            guard let targetSize else { return .decodeUnsized(targetSize: bound) }
            return .decodeUnsized(targetSize: PixelSize(width: min(side, targetSize.width), height: min(side, targetSize.height)))
        }
        if source.pixelCount <= maximumPixelCount { return .decode(targetSize: targetSize) }
        guard downsamples, source.pixelCount <= sourceLimit(downsamples: true), let targetSize else {
            return .refuse(source)
        }
        return source.fitted(into: targetSize).pixelCount <= maximumPixelCount ? .decode(targetSize: targetSize) : .refuse(source)
    }

    /// The target size to decode `info` at for a request asking for `requested`, with `decoder`.
    ///
    /// - Throws: ``ImagePipeline/Error/imageTooLarge(url:size:maximumPixelCount:)`` over the limit.
    func targetSize(for info: ImageInfo, requested: PixelSize?, decoder: any ImageDecoding, url: URL) throws -> PixelSize? {
        switch plan(for: info, targetSize: requested, downsamples: decoder.downsamplesWhileDecoding(info)) {
        case .decode(let targetSize): return targetSize
        case .decodeUnsized(let targetSize): return targetSize
        case .refuse(let size): throw ImagePipeline.Error.imageTooLarge(url: url, size: size, maximumPixelCount: maximumPixelCount)
        }
    }

    /// `target` (a request's size and content mode within the pipeline's cap) bounded by the
    /// limit: unchanged where ``targetSize(for:requested:decoder:url:)`` allows the size it
    /// decodes to; for bytes whose header gives no size, the limit's square (aspect fit).
    ///
    /// - Throws: ``ImagePipeline/Error/imageTooLarge(url:size:maximumPixelCount:)`` over the limit.
    func limited(_ target: DecodingTarget, for info: ImageInfo, decoder: any ImageDecoding, url: URL) throws -> DecodingTarget {
        let bounds = target.fittingBounds(for: info.decodingSize ?? info.pixelSize)
        let limited = try targetSize(for: info, requested: bounds, decoder: decoder, url: url)
        guard let limited, limited != bounds else { return target }
        var bounded = DecodingTarget(size: limited, contentMode: .aspectFit)
        bounded.decodesToHDR = target.decodesToHDR
        return bounded
    }

    /// Checks what a decoder made of bytes whose size their header did not give.
    ///
    /// - Throws: ``ImagePipeline/Error/imageTooLarge(url:size:maximumPixelCount:)`` when the decoder
    ///   produced more pixels than the limit.
    func checkDecoded(_ image: DecodedImage, info: ImageInfo, url: URL) throws {
        guard info.decodingSize == nil, image.pixelSize.pixelCount > maximumPixelCount else { return }
        throw ImagePipeline.Error.imageTooLarge(url: url, size: image.pixelSize, maximumPixelCount: maximumPixelCount)
    }
}
