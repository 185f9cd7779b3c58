import Foundation

/// Writers for the containers `ImageFixtures` makes beyond PNG, JPEG and GIF: BMP, TIFF,
/// BigTIFF, ICO and still lossless WebP, each uncompressed or trivially coded so no codec
/// library is needed, and each decodable by standard readers (ImageIO, Pillow, libwebp).
enum ContainerWriters {
    static func u16le(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    static func u32le(_ value: Int) -> [UInt8] { u16le(value & 0xFFFF) + u16le(value >> 16 & 0xFFFF) }
    static func u64le(_ value: Int) -> [UInt8] { u32le(value & 0xFFFF_FFFF) + u32le(value >> 32 & 0xFFFF_FFFF) }
    static func u16be(_ value: Int) -> [UInt8] { u16le(value).reversed() }
    static func u32be(_ value: Int) -> [UInt8] { u32le(value).reversed() }

    /// A 24-bit bottom-up BMP (`BITMAPINFOHEADER`) of a colour ramp, with `declaredFileSize`
    /// in its file-size field when given (decoders ignore that field).
    static func bmp(width: Int, height: Int, declaredFileSize: Int?) -> Data {
        let rowBytes = (width * 3 + 3) / 4 * 4
        var pixels = [UInt8](repeating: 0, count: rowBytes * height)
        for y in 0..<height {
            for x in 0..<width {
                let at = y * rowBytes + x * 3
                pixels[at] = UInt8(truncatingIfNeeded: x * 255 / max(1, width - 1))
                pixels[at + 1] = UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1))
                pixels[at + 2] = 0x80
            }
        }
        let fileSize = 14 + 40 + pixels.count
        var bytes = Array("BM".utf8) + u32le(declaredFileSize ?? fileSize) + [0, 0, 0, 0] + u32le(54)
        bytes += u32le(40) + u32le(width) + u32le(height) + u16le(1) + u16le(24)
        bytes += u32le(0) + u32le(pixels.count) + u32le(2835) + u32le(2835) + u32le(0) + u32le(0)
        return Data(bytes + pixels)
    }

    /// An 8-bit greyscale, uncompressed TIFF (or BigTIFF), little- or big-endian, its directory
    /// before the pixels or, as many writers do, after them. With `rowsPerStrip` shorter than
    /// the image, the pixels are several strips, and the strip offset and byte count tables
    /// stand after the pixels (as libtiff writes them), outside the directory.
    static func tiff(width: Int, height: Int, bigEndian: Bool, big: Bool, directoryFirst: Bool, rowsPerStrip: Int? = nil) -> Data {
        let u16 = bigEndian ? u16be : u16le
        let u32 = bigEndian ? u32be : u32le
        let u64: (Int) -> [UInt8] = { bigEndian ? u64le($0).reversed() : u64le($0) }
        let word = big ? u64 : u32
        let pixels = (0..<(width * height)).map { UInt8(truncatingIfNeeded: ($0 % width) * 255 / max(1, width - 1)) }
        let headerLength = big ? 16 : 8
        let rows = min(rowsPerStrip ?? height, height)
        let strips = stride(from: 0, to: height, by: rows).map { (offset: $0 * width, length: min(rows, height - $0) * width) }
        let entryCount = 9
        let directoryLength = big ? 8 + entryCount * 20 + 8 : 2 + entryCount * 12 + 4
        let directoryOffset = directoryFirst ? headerLength : headerLength + pixels.count + (strips.count > 1 ? strips.count * 2 * (big ? 8 : 4) : 0)
        let pixelsOffset = directoryFirst ? headerLength + directoryLength : headerLength
        let tablesOffset = pixelsOffset + pixels.count
        let offsetsValue = strips.count > 1 ? tablesOffset : pixelsOffset
        let countsValue = strips.count > 1 ? tablesOffset + strips.count * (big ? 8 : 4) : pixels.count
        let entries: [(tag: Int, type: Int, value: Int)] = [
            (256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 1), (262, 3, 1),
            (273, big ? 16 : 4, offsetsValue), (277, 3, 1), (278, 4, rows), (279, big ? 16 : 4, countsValue),
        ]
        var directory = big ? u64(entries.count) : u16(entries.count)
        for entry in entries {
            let count = entry.tag == 273 || entry.tag == 279 ? strips.count : 1
            // A value is left-justified in its field: a SHORT takes the field's first two bytes.
            let field = entry.type == 3 ? u16(entry.value) : entry.type == 16 ? u64(entry.value) : u32(entry.value)
            if big {
                directory += u16(entry.tag) + u16(entry.type) + u64(count) + field + [UInt8](repeating: 0, count: 8 - field.count)
            } else {
                directory += u16(entry.tag) + u16(entry.type) + u32(count) + field + [UInt8](repeating: 0, count: 4 - field.count)
            }
        }
        directory += big ? u64(0) : u32(0)
        let tables = strips.count > 1
            ? strips.flatMap { word(pixelsOffset + $0.offset) } + strips.flatMap { word($0.length) }
            : []
        var header: [UInt8] = bigEndian ? Array("MM".utf8) : Array("II".utf8)
        header += big ? u16(43) + u16(8) + u16(0) + u64(directoryOffset) : u16(42) + u32(directoryOffset)
        return Data(header + (directoryFirst ? directory + pixels + tables : pixels + tables + directory))
    }

    /// An icon whose entries hold PNGs of the given images; the directory lists each entry's
    /// size from `listedSides` when given (0 meaning 256), else from the image.
    static func ico(images: [(side: Int, png: Data)], listedSides: [Int]?) -> Data {
        var bytes = [0, 0] + u16le(1) + u16le(images.count)
        var offset = 6 + 16 * images.count
        for (index, image) in images.enumerated() {
            let side = listedSides?[index] ?? image.side
            let listed = UInt8(side >= 256 ? 0 : side)
            bytes += [listed, listed, 0, 0] + u16le(1) + u16le(32) + u32le(image.png.count) + u32le(offset)
            offset += image.png.count
        }
        var data = Data(bytes)
        for image in images { data.append(image.png) }
        return data
    }

    /// A still lossless WebP of one colour (`VP8L`, simple prefix codes), `riffSizeError` added
    /// to its RIFF size field.
    static func webP(width: Int, height: Int, riffSizeError: Int) -> Data {
        var chunks = Data()
        ImageFixtures.appendRIFFChunk("VP8L", ImageFixtures.solidVP8L(width: width, height: height, seed: 3), to: &chunks)
        var data = Data("RIFF".utf8)
        data.append(contentsOf: ImageFixtures.littleEndian32(4 + chunks.count + riffSizeError))
        data.append(contentsOf: Array("WEBP".utf8))
        data.append(chunks)
        return data
    }
}
