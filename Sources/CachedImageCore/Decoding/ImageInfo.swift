import Foundation

/// What an image's leading bytes say about it: its container format and, when the header has
/// arrived, its size in pixels.
///
/// `ImageInfo` reads headers only. It never decodes pixels and never reads further into the
/// data than the size field it needs, so sniffing a 20000x20000 PNG costs the same as sniffing
/// a thumbnail. Use it to reject non-images (an HTML error page served with status 200) and to
/// refuse decompression bombs before decoding.
///
/// ```swift
/// guard let info = ImageInfo(data: body) else { throw MyError.notAnImage }
/// if let size = info.pixelSize, size.pixelCount > 50_000_000 { throw MyError.tooLarge }
/// ```
///
/// Recognised formats and where the size comes from:
/// - PNG: the `IHDR` chunk, which must be the first chunk.
/// - JPEG: the first start-of-frame marker (`SOF0`...`SOF15` except `DHT`, `JPG` and `DAC`),
///   found by walking the marker segments from the start of the file.
/// - GIF (87a and 89a): the logical screen descriptor, grown to hold the first frame's image
///   descriptor (decoders grow the canvas to a first frame that reaches outside it); every
///   frame counts towards ``decodingSize``, which is unknown until the first image descriptor
///   has arrived.
/// - WebP: the first chunk, `VP8 ` (lossy key frame), `VP8L` (lossless) or `VP8X` (extended
///   canvas); animation frames (`ANMF`) and the image bitstream count towards ``decodingSize``.
/// - HEIC and AVIF: the `ftyp` brands decide the format; the size is the `ispe` property of the
///   primary item (`pitm` + `ipma`), or the largest `ispe` when those are missing, cropped by
///   its clean aperture (`clap`) and turned by its rotation (`irot`), so it is the displayed
///   size (a mirror, `imir`, changes nothing). ``decodingSize`` is the `ispe`.
/// - BMP: the DIB header; TIFF and BigTIFF: `ImageWidth`/`ImageLength` in the first IFD;
///   ICO/CUR: the largest entry, sized from the image it holds (an embedded PNG's `IHDR`, a
///   DIB's header), not from its directory.
/// - Anything else the platform decoder recognises (ImageIO on Apple platforms: JPEG 2000,
///   OpenEXR, PSD, raw formats...) is ``ImageFormat/other`` with the size ImageIO reads from
///   the header. Without ImageIO (Linux), such bytes are not recognised.
///
/// EXIF orientation is not applied: a JPEG's (or TIFF's) reported size is its size as stored,
/// and a photo taken in portrait reports landscape dimensions. The pixel count, which is what
/// the pixel limit checks, is the same either way; `ImageIODecoder` applies the orientation
/// to the pixels, so the decoded image (``DecodedImage/pixelSize``) is upright.
public struct ImageInfo: Sendable, Hashable {
    /// The container format.
    public var format: ImageFormat

    /// The size the header declares, or `nil` when the bytes stop before the size field (or the
    /// header declares a zero or unrepresentable dimension).
    public var pixelSize: PixelSize?

    /// What a decoder fills when it differs from ``pixelSize``.
    enum Extent: Sendable, Hashable {
        /// The same as ``pixelSize``.
        case displayed
        /// This size: an animation frame reaching outside its canvas, a HEIF image before its
        /// clean-aperture crop.
        case coded(PixelSize)
        /// Not known from these bytes yet (a GIF prefix before its first image descriptor).
        case pending
    }

    /// What a decoder fills, when it is not ``pixelSize``.
    var extent: Extent = .displayed

    /// The name of the decoder registered for these bytes (``ImageDecoderRegistry``), when the
    /// core does not recognise them itself; `nil` for the formats it parses.
    public internal(set) var registeredDecoder: String?

    /// The size the pixel limit checks: the largest area a decoder fills to decode the image.
    /// It is ``pixelSize`` for most images; more when an animation frame (GIF, APNG, WebP)
    /// reaches outside its canvas, and the coded size of a HEIF image whose clean aperture crops it.
    /// `nil` while the bytes do not say yet (a GIF before its first image descriptor, which may
    /// grow its canvas).
    public var decodingSize: PixelSize? {
        switch extent {
        case .displayed: pixelSize
        case .coded(let size): size
        case .pending: nil
        }
    }

    /// Creates an info value directly.
    public init(format: ImageFormat, pixelSize: PixelSize?) {
        self.format = format
        self.pixelSize = pixelSize
    }

    /// An info value whose decoded extent differs from its displayed size.
    init(format: ImageFormat, pixelSize: PixelSize?, extent: Extent) {
        self.format = format
        self.pixelSize = pixelSize
        self.extent = extent
    }

    /// Sniffs `data`'s format and pixel size from its header.
    ///
    /// Returns `nil` when the bytes are not a recognised image (HTML, JSON, an empty body, a
    /// video, random bytes) or are too short to tell. Never traps on malformed input.
    ///
    /// The minimum prefix that identifies each format: PNG 8 bytes (signature), JPEG 3
    /// (`FF D8 FF`), GIF 6 (`GIF87a`/`GIF89a`), WebP 12 (`RIFF????WEBP`), HEIC/AVIF 12 (`ftyp`
    /// and major brand). A HEIF file whose brands are only the generic `mif1`/`msf1` is
    /// recognised from its codec configuration property (`hvcC` means HEIC, `av1C` means AVIF);
    /// until that property has arrived, or when it is neither, the result is `nil`.
    public init?(data: Data) {
        let sniffed = HeaderBytes.with(data) { bytes in
            Self.sniffPNG(bytes)
                ?? Self.sniffJPEG(bytes)
                ?? Self.sniffGIF(bytes)
                ?? Self.sniffWebP(bytes)
                ?? Self.sniffISOBMFF(bytes)
                ?? Self.sniffBMP(bytes)
                ?? Self.sniffTIFF(bytes)
                ?? Self.sniffICO(bytes)
        }
        if let info = sniffed {
            self = info
        } else if let info = Self.sniffWithPlatformDecoder(data) {
            self = info
        } else {
            return nil
        }
    }

    /// Makes a size from header fields, or `nil` for zero or unrepresentable dimensions.
    static func size<W: BinaryInteger, H: BinaryInteger>(_ width: W?, _ height: H?) -> PixelSize? {
        guard let width, let height,
              let w = Int(exactly: width), let h = Int(exactly: height),
              w > 0, h > 0
        else { return nil }
        return PixelSize(width: w, height: h)
    }

    // MARK: - PNG

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private static func sniffPNG(_ bytes: HeaderBytes) -> ImageInfo? {
        guard bytes.matches(pngSignature, at: 0) else { return nil }
        // Signature (8), IHDR length (4), "IHDR" (4), width (4), height (4).
        guard bytes.u32be(12) == HeaderBytes.fourCC("IHDR"),
              let width = bytes.u32be(16), let height = bytes.u32be(20),
              width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF // PNG's own limit is 2^31 - 1.
        else { return ImageInfo(format: .png, pixelSize: nil) }
        guard let canvas = size(width, height) else { return ImageInfo(format: .png, pixelSize: nil) }
        return ImageInfo(format: .png, pixelSize: canvas, extent: .union(canvas, apngFrameExtent(bytes)))
    }

    /// The bounding box of every APNG frame control chunk (`fcTL`: sequence number, width,
    /// height, x and y offsets) present, or `nil` when there is none. The specification keeps
    /// frames inside the canvas; a file that does not is counted at its real extent.
    private static func apngFrameExtent(_ bytes: HeaderBytes) -> PixelSize? {
        var extent: PixelSize?
        var offset = pngSignature.count
        var visited = 0
        while visited < 100_000, let length = bytes.u32be(offset), let type = bytes.u32be(offset + 4),
              length <= 0x7FFF_FFFF {
            visited += 1
            if type == HeaderBytes.fourCC("fcTL"),
               let frame = frameExtent(width: bytes.u32be(offset + 12), height: bytes.u32be(offset + 16),
                                       x: bytes.u32be(offset + 20), y: bytes.u32be(offset + 24)) {
                extent = PixelSize.boundingBox(extent, frame)
            }
            if type == HeaderBytes.fourCC("IEND") { break }
            guard let next = HeaderBytes.end(of: offset, length: Int(length) + 12) else { break }
            offset = next
        }
        return extent
    }

    /// The box from the origin to a frame's far corner: (x + width) x (y + height).
    static func frameExtent<T: BinaryInteger>(width: T?, height: T?, x: T?, y: T?) -> PixelSize? {
        guard let width, let height, let x, let y,
              let w = Int(exactly: width), let h = Int(exactly: height), let left = Int(exactly: x), let top = Int(exactly: y),
              w > 0, h > 0
        else { return nil }
        return PixelSize(width: w.addingReportingOverflow(left).partialValue, height: h.addingReportingOverflow(top).partialValue)
    }

    // MARK: - JPEG

    private static func sniffJPEG(_ bytes: HeaderBytes) -> ImageInfo? {
        guard bytes.matches([0xFF, 0xD8, 0xFF], at: 0) else { return nil }
        return ImageInfo(format: .jpeg, pixelSize: jpegFrameSize(bytes))
    }

    /// Walks marker segments from just after SOI to the first start-of-frame segment.
    ///
    /// Bytes where a marker should start are skipped up to the next 0xFF, and so is a stuffed
    /// `FF 00`, as libjpeg does (with a warning) when it decodes: a stray byte before the frame
    /// header must not hide the size that the pixel limit checks.
    private static func jpegFrameSize(_ bytes: HeaderBytes) -> PixelSize? {
        var offset = 2
        while true {
            // Extraneous bytes before the marker.
            while let byte = bytes.u8(offset), byte != 0xFF {
                offset += 1
            }
            guard bytes.u8(offset) == 0xFF else { return nil } // Truncated.
            // Any number of 0xFF fill bytes may precede a marker code.
            var codeOffset = offset + 1
            while bytes.u8(codeOffset) == 0xFF {
                codeOffset += 1
            }
            guard let code = bytes.u8(codeOffset) else { return nil }
            offset = codeOffset + 1
            switch code {
            case 0x00, 0x01, 0xD0...0xD7:
                continue // A stuffed zero (skipped), or a standalone marker (TEM, RSTn): no length.
            case 0xD8, 0xD9, 0xDA:
                return nil // Another SOI, EOI or a scan before any frame header: malformed.
            case 0xC0...0xCF where code != 0xC4 && code != 0xC8 && code != 0xCC:
                // SOFn: length (2), precision (1), height (2), width (2).
                return size(bytes.u16be(offset + 5), bytes.u16be(offset + 3))
            default:
                guard let length = bytes.u16be(offset), length >= 2 else { return nil }
                offset += Int(length)
            }
        }
    }
}
