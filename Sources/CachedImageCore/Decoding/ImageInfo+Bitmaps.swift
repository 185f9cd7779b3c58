import Foundation

/// BMP, TIFF and ICO: formats `AsyncImage` shows (ImageIO decodes them) that the core sniffs
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

    /// A BMP declares its file size in its header: complete when that many bytes arrived.
    static func bmpIsComplete(_ bytes: HeaderBytes) -> Bool {
        guard let fileSize = bytes.u32le(2) else { return false }
        // Some writers leave the field at 0; then the pixel data offset is the best bound.
        if fileSize == 0 { return bytes.u32le(10).map { Int($0) <= bytes.count } ?? false }
        return Int(fileSize) <= bytes.count
    }

    // MARK: - TIFF

    /// `II*\0` (little-endian) or `MM\0*` (big-endian), then the offset of the first image file
    /// directory, whose `ImageWidth` (256) and `ImageLength` (257) entries give the size.
    static func sniffTIFF(_ bytes: HeaderBytes) -> ImageInfo? {
        let little = bytes.matches([0x49, 0x49, 0x2A, 0x00], at: 0)
        let big = bytes.matches([0x4D, 0x4D, 0x00, 0x2A], at: 0)
        guard little || big else { return nil }
        let u16 = { (offset: Int) in little ? bytes.u16le(offset) : bytes.u16be(offset) }
        let u32 = { (offset: Int) in little ? bytes.u32le(offset) : bytes.u32be(offset) }
        guard let ifd = u32(4), ifd >= 8, let count = u16(Int(ifd)) else {
            return ImageInfo(format: .tiff, pixelSize: nil)
        }
        var width: UInt32?
        var height: UInt32?
        for index in 0..<Int(count) {
            let entry = Int(ifd) + 2 + index * 12
            guard let tag = u16(entry), let type = u16(entry + 2) else { break }
            guard tag == 256 || tag == 257 else { continue }
            // SHORT (3) or LONG (4), stored in the entry's value field.
            let value: UInt32? = switch type {
            case 3: u16(entry + 8).map(UInt32.init)
            case 4: u32(entry + 8)
            default: nil
            }
            if tag == 256 { width = value } else { height = value }
            if width != nil, height != nil { break }
        }
        return ImageInfo(format: .tiff, pixelSize: size(width, height))
    }

    // MARK: - ICO

    /// Reserved 0, type 1 (icon) or 2 (cursor), image count (u16le), then 16-byte directory
    /// entries: width and height in one byte each (0 means 256), ..., data size and offset.
    /// The size reported is the largest entry's: that of the image the entry points at (an
    /// embedded PNG's `IHDR`, a DIB header's) when it has arrived, which is what a decoder
    /// uses, else the directory's. (A directory saying 256x256 cannot hide a 20000x20000 PNG
    /// from the pixel limit.)
    static func sniffICO(_ bytes: HeaderBytes) -> ImageInfo? {
        guard bytes.matches([0x00, 0x00], at: 0),
              let type = bytes.u16le(2), type == 1 || type == 2,
              let count = bytes.u16le(4), count > 0
        else { return nil }
        var largest: PixelSize?
        for index in 0..<Int(count) {
            let entry = 6 + index * 16
            guard let width = bytes.u8(entry), let height = bytes.u8(entry + 1) else { break }
            // Reserved byte must be 0 (a first entry that breaks this is not an icon).
            if bytes.u8(entry + 3) != 0 { return index == 0 ? nil : ImageInfo(format: .ico, pixelSize: largest) }
            let listed = PixelSize(width: width == 0 ? 256 : Int(width), height: height == 0 ? 256 : Int(height))
            let size = bytes.u32le(entry + 12).flatMap { icoImageSize(bytes, at: Int($0)) } ?? listed
            if size.pixelCount > (largest?.pixelCount ?? 0) { largest = size }
        }
        return ImageInfo(format: .ico, pixelSize: largest)
    }

    /// The size an icon entry's image declares: a PNG's `IHDR`, or a DIB's header (whose height
    /// counts the colour and mask rows, so it is twice the icon's). `nil` when it has not arrived
    /// or is neither.
    private static func icoImageSize(_ bytes: HeaderBytes, at offset: Int) -> PixelSize? {
        if bytes.matches(pngSignature, at: offset) {
            guard bytes.u32be(offset + 12) == HeaderBytes.fourCC("IHDR") else { return nil }
            return size(bytes.u32be(offset + 16), bytes.u32be(offset + 20))
        }
        guard let headerSize = bytes.u32le(offset), [40, 52, 56, 108, 124].contains(headerSize),
              let width = bytes.u32le(offset + 4), let height = bytes.u32le(offset + 8)
        else { return nil }
        let rows = Int32(bitPattern: height)
        guard rows != Int32.min else { return nil }
        return size(Int32(bitPattern: width), abs(rows) / 2)
    }

    /// Complete when every directory entry's image data has arrived.
    static func icoIsComplete(_ bytes: HeaderBytes) -> Bool {
        guard let count = bytes.u16le(4) else { return false }
        for index in 0..<Int(count) {
            let entry = 6 + index * 16
            guard let length = bytes.u32le(entry + 8), let offset = bytes.u32le(entry + 12),
                  let end = HeaderBytes.end(of: Int(offset), length: Int(length)), end <= bytes.count
            else { return false }
        }
        return true
    }
}
