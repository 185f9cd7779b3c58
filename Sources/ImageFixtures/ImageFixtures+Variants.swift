import Foundation

/// The real-world variants a drop-in for `AsyncImage` must handle, made in code: files whose
/// end is missing or sloppy, which decoders and browsers still show (accepted when the transfer
/// is known to be complete, refused when it may have been cut), files that hide their size from
/// a naive header check, and the containers beyond PNG, JPEG and GIF. Pillow 13 reads every
/// variant (the JPEG without `EOI` with `LOAD_TRUNCATED_IMAGES`) except the two WebPs whose
/// RIFF size is off, which libwebp's demuxer refuses.
///
/// ```swift
/// let noEnd = ImageFixtures.Variant.pngWithoutIEND.data   // 24x16, decodes
/// let bomb = ImageFixtures.gifWithOversizedFrame(screen: 1, frameWidth: 20_000, frameHeight: 20_000)
/// ```
extension ImageFixtures {
    /// A file class, with the size a reader reports for it.
    public enum Variant: String, CaseIterable, Sendable {
        /// A PNG whose image data is whole but whose `IEND` chunk is missing.
        case pngWithoutIEND
        /// A PNG whose `IEND` chunk is cut (its CRC missing).
        case pngWithCutIEND
        /// A PNG whose image data is followed by bytes that are no chunk, instead of `IEND`.
        case pngWithGarbageAfterImageData
        /// A JPEG without its end-of-image marker (`FF D9`).
        case jpegWithoutEOI
        /// A JPEG followed by junk after its end-of-image marker.
        case jpegWithTrailingJunk
        /// A GIF without its trailer byte (`0x3B`).
        case gifWithoutTrailer
        /// Two GIF streams, the first without its trailer, one after the other.
        case concatenatedGIF
        /// A GIF with junk where the next block should start, after its image.
        case gifWithJunkAfterImage
        /// A BMP whose file-size field is wrong (1,000 bytes too large).
        case bmpWithWrongFileSize
        /// A lossless WebP whose RIFF size is 6 bytes too small. libwebp's demuxer (Pillow)
        /// refuses it: a decoder that does must fail it as a decode error.
        case webPWithShortRIFFSize
        /// A lossless WebP whose RIFF size is 100 bytes too large (what a cut body looks like).
        /// libwebp's demuxer (Pillow) refuses it.
        case webPWithLongRIFFSize
        /// A little-endian TIFF with its directory after the strip.
        case tiffDirectoryLast
        /// A big-endian TIFF with its directory first.
        case tiffBigEndian
        /// A BigTIFF (`II+`).
        case bigTIFF
        /// An icon holding two PNG images.
        case icoWithPNGs
        /// A still lossless WebP.
        case webP

        /// The file.
        public var data: Data {
            let png = ImageFixtures.png(width: 24, height: 16, seed: 5)
            let jpeg = ImageFixtures.jpeg(width: 24, height: 16, seed: 5, detail: 4)
            let gif = ImageFixtures.gif(width: 24, height: 16)
            switch self {
            case .pngWithoutIEND: return png.dropLast(12)
            case .pngWithCutIEND: return png.dropLast(4)
            case .pngWithGarbageAfterImageData: return png.dropLast(12) + Data((0..<40).map { UInt8(($0 * 37 + 11) & 0xFF) })
            case .jpegWithoutEOI: return jpeg.dropLast(2)
            case .jpegWithTrailingJunk: return jpeg + Data("trailing junk".utf8)
            case .gifWithoutTrailer: return gif.dropLast()
            case .concatenatedGIF: return gif.dropLast() + ImageFixtures.gif(width: 8, height: 8)
            case .gifWithJunkAfterImage: return gif.dropLast() + Data([0x00, 0x12, 0x34]) + Data([0x3B])
            case .bmpWithWrongFileSize: return ContainerWriters.bmp(width: 24, height: 16, declaredFileSize: 14 + 40 + 72 * 16 + 1_000)
            case .webPWithShortRIFFSize: return ContainerWriters.webP(width: 24, height: 16, riffSizeError: -6)
            case .webPWithLongRIFFSize: return ContainerWriters.webP(width: 24, height: 16, riffSizeError: 100)
            case .tiffDirectoryLast: return ContainerWriters.tiff(width: 24, height: 16, bigEndian: false, big: false, directoryFirst: false)
            case .tiffBigEndian: return ContainerWriters.tiff(width: 24, height: 16, bigEndian: true, big: false, directoryFirst: true)
            case .bigTIFF: return ContainerWriters.tiff(width: 24, height: 16, bigEndian: false, big: true, directoryFirst: false)
            case .icoWithPNGs:
                return ContainerWriters.ico(images: [(16, ImageFixtures.png(width: 16, height: 16, seed: 1)), (24, ImageFixtures.png(width: 24, height: 24, seed: 2))], listedSides: nil)
            case .webP: return ContainerWriters.webP(width: 24, height: 16, riffSizeError: 0)
            }
        }

        /// The size a reader reports (the largest entry for an icon).
        public var pixelSize: (width: Int, height: Int) {
            switch self {
            case .icoWithPNGs: (24, 24)
            default: (24, 16)
            }
        }

        /// Whether the container is structurally whole (only its end or a length field is off
        /// otherwise): whole files are accepted however the transfer ended.
        public var isStructurallyComplete: Bool {
            switch self {
            case .jpegWithTrailingJunk, .concatenatedGIF, .gifWithJunkAfterImage, .bmpWithWrongFileSize,
                 .tiffDirectoryLast, .tiffBigEndian, .bigTIFF, .icoWithPNGs, .webP:
                true
            default:
                false
            }
        }
    }

    /// A GIF whose logical screen is `screen` x `screen` pixels but whose one image descriptor
    /// declares a `frameWidth` x `frameHeight` frame (decoders grow the canvas to it), with only
    /// a few pixels of data: a decompression bomb a screen-only size check lets through.
    public static func gifWithOversizedFrame(screen: Int, frameWidth: Int, frameHeight: Int) -> Data {
        var data = Data("GIF89a".utf8)
        data.append(contentsOf: ContainerWriters.u16le(screen) + ContainerWriters.u16le(screen) + [0xF1, 0, 0])
        data.append(contentsOf: GIFWriter.palette)
        data.append(0x2C)
        data.append(contentsOf: ContainerWriters.u16le(0) + ContainerWriters.u16le(0))
        data.append(contentsOf: ContainerWriters.u16le(frameWidth) + ContainerWriters.u16le(frameHeight) + [0x00])
        // LZW minimum code size 2; one sub-block: clear code, a pixel, end code.
        data.append(contentsOf: [0x02, 0x02, 0x44, 0x01, 0x00, 0x3B])
        return data
    }

    /// An icon whose one directory entry says `listedSide` x `listedSide` but holds a PNG of
    /// `width` x `height` pixels (the header only when `headerOnly`): decoders use the PNG's size.
    public static func icoUnderstatingItsImage(listedSide: Int, width: Int, height: Int, headerOnly: Bool) -> Data {
        let png = headerOnly ? pngHeader(width: width, height: height) : ImageFixtures.png(width: width, height: height, seed: 4)
        return ContainerWriters.ico(images: [(width, png)], listedSides: [listedSide])
    }

    /// A TIFF (or BigTIFF) of `width` x `height` 8-bit grey pixels with its directory after
    /// the pixel data, as many writers put it.
    public static func tiff(width: Int, height: Int, big: Bool = false) -> Data {
        ContainerWriters.tiff(width: width, height: height, bigEndian: false, big: big, directoryFirst: false)
    }

    /// A TIFF (or BigTIFF) of `width` x `height` 8-bit grey pixels in strips of `rowsPerStrip`
    /// rows, its directory first and its strip tables after the pixels (libtiff's layout): the
    /// directory and the size arrive first, the tables last.
    public static func tiffWithStripTablesLast(width: Int, height: Int, rowsPerStrip: Int, big: Bool = false) -> Data {
        ContainerWriters.tiff(width: width, height: height, bigEndian: false, big: big, directoryFirst: true, rowsPerStrip: rowsPerStrip)
    }

    /// A 24-bit BMP of `width` x `height` pixels.
    public static func bmp(width: Int, height: Int) -> Data {
        ContainerWriters.bmp(width: width, height: height, declaredFileSize: nil)
    }
}
