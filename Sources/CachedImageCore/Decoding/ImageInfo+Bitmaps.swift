import Foundation

/// BMP and ICO (TIFF is in `ImageInfo+TIFF`): formats `AsyncImage` shows (ImageIO decodes them) that the core sniffs
/// itself, so they get the same pixel-count guard and, where the container says how long it
/// is, the same truncation check as PNG or JPEG.
extension ImageInfo {
    // MARK: - BMP

    /// `BM`, file size (u32le), reserved (4), pixel data offset (u32le), then a DIB header
    /// whose size (u32le at 14) is at least 12. Width and height follow: 16-bit in the 12-byte
    /// OS/2 `BITMAPCOREHEADER`, signed 32-bit otherwise (a negative height means top-down rows).
    static func sniffBMP(_ bytes: HeaderBytes) -> ImageInfo? {
        guard bytes.matches(Array("BM".utf8), at: 0) else { return nil }
        // Too short to tell a bitmap from text that starts with "BM": not recognised.
        guard let dibSize = bytes.u32le(14) else { return nil }
        guard [12, 40, 52, 56, 64, 108, 124].contains(dibSize) else { return nil }
        if dibSize == 12 {
            return ImageInfo(format: .bmp, pixelSize: size(bytes.u16le(18), bytes.u16le(20)))
        }
        guard let width = bytes.u32le(18), let height = bytes.u32le(22) else {
            return ImageInfo(format: .bmp, pixelSize: nil)
        }
        let signedWidth = Int32(bitPattern: width)
        let signedHeight = Int32(bitPattern: height)
        guard signedWidth > 0, signedHeight != Int32.min else { return ImageInfo(format: .bmp, pixelSize: nil) }
        return ImageInfo(format: .bmp, pixelSize: size(signedWidth, abs(signedHeight)))
    }

    /// Complete when the pixel data the header describes has arrived: the rows of an
    /// uncompressed bitmap (`BI_RGB`, `BI_BITFIELDS`), else the header's image size field. The
    /// file-size field at offset 2 is not used: writers get it wrong and decoders ignore it.
    static func bmpContainerCheck(_ bytes: HeaderBytes) -> ContainerCheck {
        guard bytes.matches(Array("BM".utf8), at: 0), let pixelOffset = bytes.u32le(10).map(Int.init),
              let dibSize = bytes.u32le(14)
        else { return .broken("the bitmap header is incomplete") }
        guard pixelOffset < bytes.count else {
            return .unterminated("the pixel data starts at offset \(pixelOffset), past the body's \(bytes.count) bytes")
        }
        guard let pixelBytes = bmpPixelByteCount(bytes, dibSize: dibSize) else { return .complete }
        guard let end = HeaderBytes.end(of: pixelOffset, length: pixelBytes), end <= bytes.count else {
            return .unterminated("the pixel rows (\(pixelBytes) bytes from offset \(pixelOffset)) run past the body's \(bytes.count) bytes")
        }
        return .complete
    }

    /// The bytes of pixel data the header describes, or `nil` when it does not say (a
    /// compressed bitmap without an image size).
    private static func bmpPixelByteCount(_ bytes: HeaderBytes, dibSize: UInt32) -> Int? {
        let width: Int, height: Int, bitsPerPixel: Int, compression: UInt32
        if dibSize == 12 {
            guard let w = bytes.u16le(18), let h = bytes.u16le(20), let bpp = bytes.u16le(24) else { return nil }
            (width, height, bitsPerPixel, compression) = (Int(w), Int(h), Int(bpp), 0)
        } else {
            guard let w = bytes.u32le(18), let h = bytes.u32le(22), let bpp = bytes.u16le(28),
                  let method = bytes.u32le(30)
            else { return nil }
            width = Int(Int32(bitPattern: w))
            height = abs(Int(Int32(bitPattern: h)))
            (bitsPerPixel, compression) = (Int(bpp), method)
        }
        // BI_RGB, BI_BITFIELDS, BI_ALPHABITFIELDS: rows of pixels padded to 4 bytes.
        guard [0, 3, 6].contains(compression) else {
            return bytes.u32le(34).flatMap { $0 > 0 ? Int($0) : nil }
        }
        guard width > 0, height > 0, bitsPerPixel > 0 else { return nil }
        return dibPixelBytes(width: width, height: height, bitsPerPixel: bitsPerPixel) ?? .max
    }

    /// The bytes of `height` rows of `width` pixels at `bitsPerPixel`, each row padded to 4
    /// bytes, as a DIB stores them; `nil` when that is past any offset.
    private static func dibPixelBytes(width: Int, height: Int, bitsPerPixel: Int) -> Int? {
        let (bits, overflow1) = width.multipliedReportingOverflow(by: bitsPerPixel)
        guard !overflow1, bits <= Int.max - 31 else { return nil }
        let (total, overflow2) = ((bits + 31) / 32 * 4).multipliedReportingOverflow(by: height)
        return overflow2 ? nil : total
    }

    // MARK: - ICO

    /// Reserved 0, type 1 (icon) or 2 (cursor), image count (u16le), then 16-byte directory
    /// entries: width and height in one byte each (0 means 256), ..., data size and offset.
    /// The size reported is the largest entry's, read from the image the entry holds (an
    /// embedded PNG's `IHDR`, a DIB's header), which is what a decoder uses; the directory's
    /// own size only for an entry holding neither. Until every entry's image header has
    /// arrived the size is unknown (a directory saying 256x256 cannot hide a 20000x20000 PNG
    /// from a download's early pixel check).
    static func sniffICO(_ bytes: HeaderBytes) -> ImageInfo? {
        guard bytes.matches([0x00, 0x00], at: 0),
              let type = bytes.u16le(2), type == 1 || type == 2,
              let count = bytes.u16le(4), count > 0
        else { return nil }
        var largest: PixelSize?
        for index in 0..<Int(count) {
            let entry = 6 + index * 16
            guard let width = bytes.u8(entry), let height = bytes.u8(entry + 1),
                  let offset = bytes.u32le(entry + 12).map(Int.init)
            else { return ImageInfo(format: .ico, pixelSize: nil) }
            // Reserved byte must be 0 (a first entry that breaks this is not an icon).
            if bytes.u8(entry + 3) != 0 { return index == 0 ? nil : ImageInfo(format: .ico, pixelSize: largest) }
            guard bytes.contains(offset, length: 24) else { return ImageInfo(format: .ico, pixelSize: nil) }
            let listed = PixelSize(width: width == 0 ? 256 : Int(width), height: height == 0 ? 256 : Int(height))
            let size = icoImageSize(bytes, at: offset) ?? listed
            if size.pixelCount > (largest?.pixelCount ?? 0) { largest = size }
        }
        return ImageInfo(format: .ico, pixelSize: largest)
    }

    /// The size an icon entry's image declares: a PNG's `IHDR`, or a DIB's header (whose height
    /// counts the colour and mask rows, so it is twice the icon's). `nil` when it is neither.
    private static func icoImageSize(_ bytes: HeaderBytes, at offset: Int) -> PixelSize? {
        if bytes.matches(pngSignature, at: offset) {
            guard bytes.u32be(offset + 12) == HeaderBytes.fourCC("IHDR") else { return nil }
            return size(bytes.u32be(offset + 16), bytes.u32be(offset + 20))
        }
        guard let (width, rows) = icoDIBDimensions(bytes, at: offset) else { return nil }
        return size(width, rows)
    }

    /// A DIB icon image's width and (halved) height, or `nil` when `offset` holds no DIB header.
    private static func icoDIBDimensions(_ bytes: HeaderBytes, at offset: Int) -> (Int, Int)? {
        guard let headerSize = bytes.u32le(offset), [40, 52, 56, 108, 124].contains(headerSize),
              let width = bytes.u32le(offset + 4), let height = bytes.u32le(offset + 8)
        else { return nil }
        let rows = Int32(bitPattern: height)
        guard rows != Int32.min else { return nil }
        return (Int(Int32(bitPattern: width)), Int(abs(rows) / 2))
    }

    /// Complete when every entry's image has arrived, measured from what it holds: an
    /// embedded PNG to its `IEND`, a DIB's header, palette and colour rows (the AND mask, which
    /// some writers leave out, is not required). Only an entry holding neither is measured by
    /// its directory byte count.
    ///
    /// Entries may share their image, or point into one another's: the PNG chunk chains walked
    /// are remembered by offset, so the check is linear in the body whatever the directory says.
    static func icoContainerCheck(_ bytes: HeaderBytes) -> ContainerCheck {
        var chains = PNGChunkChains(bytes, remembering: true)
        return icoContainerCheck(bytes, chains: &chains)
    }

    /// The check, walking embedded PNGs with `chains` (which tests read to count the work).
    static func icoContainerCheck(_ bytes: HeaderBytes, chains: inout PNGChunkChains) -> ContainerCheck {
        guard let count = bytes.u16le(4), count > 0 else { return .broken("the icon directory is empty or cut") }
        var whole = 0
        var missing: String?
        for index in 0..<Int(count) {
            let entry = 6 + index * 16
            guard let length = bytes.u32le(entry + 8).map(Int.init), let offset = bytes.u32le(entry + 12).map(Int.init) else {
                return .broken("the icon directory is cut")
            }
            if icoEntryArrived(bytes, offset: offset, listedLength: length, chains: &chains) {
                whole += 1
            } else {
                missing = missing ?? "entry \(index + 1)'s image (at offset \(offset)) does not fully arrive in the body's \(bytes.count) bytes"
            }
        }
        guard let missing else { return .complete }
        return whole > 0 || bytes.count > 6 + Int(count) * 16 ? .unterminated(missing) : .broken(missing)
    }

    private static func icoEntryArrived(
        _ bytes: HeaderBytes, offset: Int, listedLength: Int, chains: inout PNGChunkChains
    ) -> Bool {
        guard offset < bytes.count else { return false }
        if bytes.matches(pngSignature, at: offset) {
            return chains.check(signatureAt: offset) == .complete
        }
        if let (width, rows) = icoDIBDimensions(bytes, at: offset), width > 0, rows > 0,
           let headerSize = bytes.u32le(offset).map(Int.init), let bitsPerPixel = bytes.u16le(offset + 14).map(Int.init) {
            let colorsUsed = bytes.u32le(offset + 32).map(Int.init) ?? 0
            // Header (at most 124 bytes) and palette (at most 1 KB) cannot overflow; the rows can.
            let palette = bitsPerPixel <= 8 ? (colorsUsed > 0 ? min(colorsUsed, 256) : 1 << bitsPerPixel) * 4 : 0
            guard let rowsBytes = dibPixelBytes(width: width, height: rows, bitsPerPixel: bitsPerPixel),
                  let length = HeaderBytes.end(of: headerSize + palette, length: rowsBytes),
                  let end = HeaderBytes.end(of: offset, length: length)
            else { return false }
            return end <= bytes.count
        }
        guard let end = HeaderBytes.end(of: offset, length: listedLength) else { return false }
        return end <= bytes.count
    }
}
