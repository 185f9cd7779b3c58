import Foundation

/// A video file the pipeline may show the first frame of: an MP4, QuickTime, M4V or 3GPP
/// container, recognised from its bytes. The decisions behind video thumbnails (the Apple
/// layer's `ImageDecoderRegistry.registerVideoThumbnails()`), made here so they are tested on
/// Linux; only the AVFoundation call lives in the Apple layer.
///
/// - **Which bytes are a video**: an ISO-BMFF `ftyp` box whose brands name a video file
///   (`isom`, `iso2`...`iso6`, `mp41`, `mp42`, `avc1`, `qt  `, `M4V `, `3gp4`...) and no image
///   brand: HEIC and AVIF files are ISO-BMFF too, and any HEIF or AVIF brand (`heic`, `mif1`,
///   `msf1`, `miaf`, `avif`, `avis`...) makes the file an image, whatever else it lists. A
///   classic QuickTime movie without `ftyp` is recognised by its first atom (`moov`, `mdat`,
///   `wide`, `free`, `skip`, `pnot`). Responses typed as one of ``mimeTypes`` are offered to the decoder as well; audio
///   files (major brand `M4A `, `M4B `, `M4P `) are not videos.
/// - **The file extension** AVFoundation reads it under (it opens files, not bytes): `mov`,
///   `m4v`, `3gp` or `mp4`.
/// - **The size to ask for**: the video's presentation size, from the first track with a size
///   in `moov`'s `tkhd` boxes (rotated by its matrix, as AVFoundation shows it), brought to the
///   request's ``DecodingTarget``; without a size in the bytes, the target's bounds.
package struct VideoContainer: Sendable, Hashable {
    /// The container, as far as the file extension goes.
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        case mp4, mov, m4v, threeGPP = "3gp"

        /// The extension of the temporary file AVFoundation reads.
        package var fileExtension: String { rawValue }
    }

    /// The container.
    package var kind: Kind
    /// The video's size as shown (a 90- or 270-degree track matrix swaps its sides), from the
    /// first `tkhd` with a size; `nil` when the bytes do not say (no `moov`, or it was not found).
    package var presentationSize: PixelSize?

    /// The media types whose responses go to the video decoder, whatever their bytes look like:
    /// the video containers AVFoundation reads.
    package static let mimeTypes = ["video/mp4", "video/quicktime", "video/x-m4v", "video/3gpp", "video/3gpp2"]

    /// A video of `kind` and, if known, `presentationSize`.
    package init(kind: Kind, presentationSize: PixelSize?) {
        self.kind = kind
        self.presentationSize = presentationSize
    }

    /// The video in `data`, or `nil` when the bytes are not a video container (an image, HEIC
    /// and AVIF included, or anything else).
    package init?(data: Data) {
        guard let parsed = HeaderBytes.with(data, { bytes in Self.parse(bytes) }) else { return nil }
        self = parsed
    }

    /// Whether `data` is a video container (the registry's cheap sniffing closure: only the
    /// first box is read).
    package static func matches(_ data: Data) -> Bool {
        HeaderBytes.with(data.prefix(256)) { kind(of: $0) } != nil
    }

    /// The size AVFoundation should produce for `target`: the presentation size at the target
    /// (``DecodingTarget/decodedSize(of:)``: fill or fit, never upscaled, within the cap), or the
    /// target's own bounds when the size is unknown (AVFoundation fits the frame inside them);
    /// `nil` for no bound at all (the frame at its own size).
    package func maximumSize(for target: DecodingTarget) -> PixelSize? {
        if let presentationSize {
            return target.decodedSize(of: presentationSize)
        }
        return target.fittingBounds(for: nil)
    }

    /// What the Apple layer's decoder asks AVFoundation for `data` at `target`: the temporary
    /// file's extension (the container's; `mp4` for bytes that are not recognisably one, such as
    /// a response typed as a video whose bytes are not recognisably one, which AVFoundation then judges) and the
    /// `maximumSize` to give `AVAssetImageGenerator`, which fits the frame inside it.
    ///
    /// That box is a square of the frame's longest side (``maximumSize(for:)``), so the frame
    /// comes out at the size wanted whether AVFoundation applies the box before or after the
    /// track's rotation. Without a size in the bytes: for a fill target, a square of the
    /// target's longest side (the frame's aspect is unknown); otherwise the target's bounds.
    package static func frameRequest(for data: Data, target: DecodingTarget) -> (fileExtension: String, maximumSize: PixelSize?) {
        let video = VideoContainer(data: data)
        let kind = video?.kind ?? .mp4
        guard let video, video.presentationSize != nil else {
            let bounds = target.fittingBounds(for: nil)
            let fills = target.contentMode == .aspectFill && target.size != nil
            return (kind.fileExtension, fills ? bounds.map(square) : bounds)
        }
        return (kind.fileExtension, video.maximumSize(for: target).map(square))
    }

    /// The square of `size`'s longest side: the same box turned a quarter.
    private static func square(_ size: PixelSize) -> PixelSize {
        let side = max(size.width, size.height)
        return PixelSize(width: side, height: side)
    }

    // MARK: Parsing

    private static func parse(_ bytes: HeaderBytes) -> VideoContainer? {
        guard let kind = kind(of: bytes) else { return nil }
        return VideoContainer(kind: kind, presentationSize: presentationSize(in: bytes))
    }

    /// The container kind the first box implies, or `nil` when it is not a video's.
    private static func kind(of bytes: HeaderBytes) -> Kind? {
        guard let type = bytes.u32be(4), let size = bytes.u32be(0), size >= 8 || size <= 1 else { return nil }
        if type != HeaderBytes.fourCC("ftyp") {
            // A QuickTime movie from before `ftyp`: its first atom is the movie, its data, padding
            // or a preview.
            let classic = ["moov", "mdat", "wide", "free", "skip", "pnot"].map(HeaderBytes.fourCC)
            return classic.contains(type) ? .mov : nil
        }
        guard size >= 16, let major = bytes.u32be(8) else { return nil }
        var brands = [major]
        var offset = 16
        let end = min(Int(clamping: size), bytes.count)
        while offset + 4 <= end, brands.count < 64, let brand = bytes.u32be(offset) {
            brands.append(brand)
            offset += 4
        }
        if brands.contains(where: isImageBrand) { return nil }
        // An audio file (`.m4a`, an audiobook, a protected track) is not a video, whatever it lists.
        if audioBrands.contains(major) { return nil }
        // The major brand decides the extension; a compatible one makes the file a video.
        return videoKind(ofBrand: major) ?? brands.dropFirst().lazy.compactMap(videoKind(ofBrand:)).first
    }

    /// HEIF and AVIF brands, the image formats that share ISO-BMFF (the core's own list, plus the
    /// generic HEIF ones).
    private static func isImageBrand(_ brand: UInt32) -> Bool {
        ImageInfo.format(ofBrand: brand) != nil || genericImageBrands.contains(brand)
    }

    private static let audioBrands: Set<UInt32> = [
        HeaderBytes.fourCC("M4A "), HeaderBytes.fourCC("M4B "), HeaderBytes.fourCC("M4P "),
    ]

    private static let genericImageBrands: Set<UInt32> = [
        HeaderBytes.fourCC("mif1"), HeaderBytes.fourCC("mif2"), HeaderBytes.fourCC("msf1"), HeaderBytes.fourCC("miaf"),
    ]

    /// The container a video brand names; `nil` for other brands.
    private static func videoKind(ofBrand brand: UInt32) -> Kind? {
        switch brand {
        case HeaderBytes.fourCC("qt  "): .mov
        case HeaderBytes.fourCC("M4V "), HeaderBytes.fourCC("M4VH"), HeaderBytes.fourCC("M4VP"): .m4v
        case HeaderBytes.fourCC("3gp4"), HeaderBytes.fourCC("3gp5"), HeaderBytes.fourCC("3gp6"),
             HeaderBytes.fourCC("3g2a"): .threeGPP
        case HeaderBytes.fourCC("isom"), HeaderBytes.fourCC("iso2"), HeaderBytes.fourCC("iso3"),
             HeaderBytes.fourCC("iso4"), HeaderBytes.fourCC("iso5"), HeaderBytes.fourCC("iso6"),
             HeaderBytes.fourCC("iso7"), HeaderBytes.fourCC("iso8"), HeaderBytes.fourCC("iso9"),
             HeaderBytes.fourCC("cmfc"),
             HeaderBytes.fourCC("mp41"), HeaderBytes.fourCC("mp42"), HeaderBytes.fourCC("avc1"),
             HeaderBytes.fourCC("dash"), HeaderBytes.fourCC("mmp4"), HeaderBytes.fourCC("f4v "):
            .mp4
        default: nil
        }
    }

    /// The first track's size as shown: `moov` / `trak` / `tkhd` (ISO/IEC 14496-12 8.3.2),
    /// width and height in 16.16 fixed point after the matrix. Tracks without a size (audio)
    /// are skipped.
    private static func presentationSize(in bytes: HeaderBytes) -> PixelSize? {
        guard let moov = ImageInfo.firstBox(HeaderBytes.fourCC("moov"), in: bytes, 0..<bytes.count) else { return nil }
        var size: PixelSize?
        ImageInfo.forEachBox(in: bytes, moov.contentStart..<moov.contentEnd) { trak in
            guard trak.type == HeaderBytes.fourCC("trak"),
                  let tkhd = ImageInfo.firstBox(HeaderBytes.fourCC("tkhd"), in: bytes, trak.contentStart..<trak.contentEnd)
            else { return true }
            size = trackSize(tkhd, bytes)
            return size == nil
        }
        return size
    }

    /// A `tkhd` box's width and height, swapped when its matrix turns the track by 90 or 270 degrees.
    private static func trackSize(_ tkhd: Box, _ bytes: HeaderBytes) -> PixelSize? {
        let start = tkhd.contentStart
        guard let version = bytes.u8(start) else { return nil }
        // Version and flags, then times, track ID, reserved, duration (64-bit times in version 1).
        let matrixStart = start + 4 + (version == 1 ? 32 : 20) + 16
        let sizeStart = matrixStart + 36
        guard sizeStart + 8 <= tkhd.contentEnd,
              let a = bytes.u32be(matrixStart), let d = bytes.u32be(matrixStart + 16),
              let width = bytes.u32be(sizeStart), let height = bytes.u32be(sizeStart + 4)
        else { return nil }
        let size = PixelSize(width: Int(width >> 16), height: Int(height >> 16))
        guard size.width > 0, size.height > 0 else { return nil }
        // A quarter turn has zeros on the diagonal.
        return a == 0 && d == 0 ? PixelSize(width: size.height, height: size.width) : size
    }

    private typealias Box = ImageInfo.Box
}
