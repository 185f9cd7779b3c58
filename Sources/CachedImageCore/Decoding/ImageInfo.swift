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
/// - GIF (87a and 89a): the logical screen descriptor.
/// - WebP: the first chunk, `VP8 ` (lossy key frame), `VP8L` (lossless) or `VP8X` (extended
///   canvas).
/// - HEIC and AVIF: the `ftyp` brands decide the format; the size is the `ispe` property of the
///   primary item (`pitm` + `ipma`), or the largest `ispe` when those are missing.
/// - BMP: the DIB header; TIFF: `ImageWidth`/`ImageLength` in the first IFD; ICO/CUR: the
///   largest directory entry.
/// - Anything else the platform decoder recognises (ImageIO on Apple platforms: JPEG 2000,
///   OpenEXR, PSD, raw formats...) is ``ImageFormat/other`` with the size ImageIO reads from
///   the header. Without ImageIO (Linux), such bytes are not recognised.
///
/// The reported size is the size as stored; EXIF orientation and HEIF `irot` are not applied
/// (they do not change the pixel count).
public struct ImageInfo: Sendable, Hashable {
    /// The container format.
    public var format: ImageFormat

    /// The size the header declares, or `nil` when the bytes stop before the size field (or the
    /// header declares a zero or unrepresentable dimension).
    public var pixelSize: PixelSize?

    /// Creates an info value directly.
    public init(format: ImageFormat, pixelSize: PixelSize?) {
        self.format = format
        self.pixelSize = pixelSize
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
        let bytes = HeaderBytes(data)
        if let info = Self.sniffPNG(bytes)
            ?? Self.sniffJPEG(bytes)
            ?? Self.sniffGIF(bytes)
            ?? Self.sniffWebP(bytes)
            ?? Self.sniffISOBMFF(bytes)
            ?? Self.sniffBMP(bytes)
            ?? Self.sniffTIFF(bytes)
            ?? Self.sniffICO(bytes)
        {
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
        return ImageInfo(format: .png, pixelSize: size(width, height))
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

    // MARK: - GIF

    private static func sniffGIF(_ bytes: HeaderBytes) -> ImageInfo? {
        guard bytes.matches(Array("GIF87a".utf8), at: 0) || bytes.matches(Array("GIF89a".utf8), at: 0)
        else { return nil }
        return ImageInfo(format: .gif, pixelSize: size(bytes.u16le(6), bytes.u16le(8)))
    }

    // MARK: - WebP

    private static func sniffWebP(_ bytes: HeaderBytes) -> ImageInfo? {
        guard bytes.matches(Array("RIFF".utf8), at: 0), bytes.matches(Array("WEBP".utf8), at: 8)
        else { return nil }
        return ImageInfo(format: .webp, pixelSize: webPCanvasSize(bytes))
    }

    /// Reads the size from the first chunk, which starts at offset 12; its payload starts at 20.
    private static func webPCanvasSize(_ bytes: HeaderBytes) -> PixelSize? {
        switch bytes.u32be(12) {
        case HeaderBytes.fourCC("VP8 "):
            // Frame tag (3 bytes, bit 0 clear for a key frame), start code 9D 01 2A, then
            // 16-bit little-endian width and height whose top two bits are a scale.
            guard let tag = bytes.u8(20), tag & 0x01 == 0,
                  bytes.matches([0x9D, 0x01, 0x2A], at: 23),
                  let width = bytes.u16le(26), let height = bytes.u16le(28)
            else { return nil }
            return size(width & 0x3FFF, height & 0x3FFF)
        case HeaderBytes.fourCC("VP8L"):
            // Signature 0x2F, then 14 bits width - 1 and 14 bits height - 1, little-endian.
            guard bytes.u8(20) == 0x2F, let bits = bytes.u32le(21) else { return nil }
            return size((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        case HeaderBytes.fourCC("VP8X"):
            // Flags (1), reserved (3), then 24-bit canvas width - 1 and height - 1.
            guard let width = bytes.u24le(24), let height = bytes.u24le(27) else { return nil }
            return size(width + 1, height + 1)
        default:
            return nil
        }
    }
}
