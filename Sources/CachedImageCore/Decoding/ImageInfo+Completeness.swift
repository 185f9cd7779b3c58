import Foundation

extension ImageInfo {
    /// Whether `data` looks like a fully delivered `format` container rather than a truncated one.
    ///
    /// Use it to refuse a download that stopped early before it is cached. It checks structure,
    /// not pixels, and never traps on malformed input:
    /// - PNG: the chunk chain from the signature reaches a complete `IEND` chunk.
    /// - JPEG: the marker segments and entropy-coded scans, walked from `SOI`, reach an `EOI`
    ///   (`FF D9`). Bytes after `EOI` (padding, vendor trailers) are tolerated. If the stream is
    ///   malformed rather than short, an `EOI` within the last 64 bytes is accepted instead.
    /// - GIF: the block chain (extensions and images with their sub-blocks) reaches the `0x3B`
    ///   trailer.
    /// - WebP: the RIFF size field plus 8 equals `data.count` (one pad byte more is allowed).
    /// - HEIC/AVIF: the file starts with `ftyp`, the top-level box sizes add up to exactly
    ///   `data.count` (a box of size 0 runs to the end), there is a `meta` box (or `moov`, for
    ///   image sequences), and every item extent that `meta`'s `iloc` places in the file ends
    ///   within the data. The last check catches a file cut exactly at a box boundary.
    ///
    /// ```swift
    /// guard ImageInfo.isComplete(body, format: info.format) else { throw MyError.truncated }
    /// ```
    ///
    /// - Returns: `false` when the data is truncated, does not start like `format`, or is too
    ///   malformed to tell.
    public static func isComplete(_ data: Data, format: ImageFormat) -> Bool {
        let bytes = HeaderBytes(data)
        switch format {
        case .png: return pngIsComplete(bytes)
        case .jpeg: return jpegIsComplete(data)
        case .gif: return gifIsComplete(bytes)
        case .webp: return webPIsComplete(bytes)
        case .heic, .avif: return isobmffIsComplete(bytes)
        case .bmp: return bmpIsComplete(bytes)
        case .ico: return icoIsComplete(bytes)
        // TIFF strips can sit anywhere in the file; the decoder judges them.
        case .tiff: return true
        case .other: return platformDecoderIsComplete(data)
        }
    }

    // MARK: - PNG

    private static func pngIsComplete(_ bytes: HeaderBytes) -> Bool {
        guard bytes.matches(pngSignature, at: 0) else { return false }
        var offset = pngSignature.count
        while let length = bytes.u32be(offset), let type = bytes.u32be(offset + 4) {
            // Length (4) + type (4) + data + CRC (4); PNG limits a chunk's length to 2^31 - 1.
            guard length <= 0x7FFF_FFFF,
                  let dataEnd = HeaderBytes.end(of: offset, length: Int(length)),
                  let chunkEnd = HeaderBytes.end(of: dataEnd, length: 12)
            else { return false }
            if type == HeaderBytes.fourCC("IEND") {
                return chunkEnd <= bytes.count
            }
            offset = chunkEnd
        }
        return false
    }

    // MARK: - JPEG

    private enum Walk {
        case complete
        case truncated
        case malformed
    }

    /// How many bytes may follow `EOI` when the fallback tail check is used.
    private static let jpegTrailingTolerance = 64

    private static func jpegIsComplete(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            guard raw.count >= 4, raw[0] == 0xFF, raw[1] == 0xD8 else { return false }
            switch walkJPEG(raw) {
            case .complete:
                return true
            case .truncated:
                return false
            case .malformed:
                let start = max(2, raw.count - 2 - jpegTrailingTolerance)
                var index = raw.count - 2
                while index >= start {
                    if raw[index] == 0xFF, raw[index + 1] == 0xD9 { return true }
                    index -= 1
                }
                return false
            }
        }
    }

    private static func walkJPEG(_ raw: UnsafeRawBufferPointer) -> Walk {
        let count = raw.count
        var index = 2
        while true {
            guard index < count else { return .truncated }
            guard raw[index] == 0xFF else { return .malformed }
            var codeIndex = index + 1
            while codeIndex < count, raw[codeIndex] == 0xFF {
                codeIndex += 1 // Fill bytes.
            }
            guard codeIndex < count else { return .truncated }
            let code = raw[codeIndex]
            index = codeIndex + 1
            switch code {
            case 0xD9:
                return .complete
            case 0x01, 0xD0...0xD7:
                continue
            case 0x00, 0xD8:
                return .malformed
            default:
                guard index + 1 < count else { return .truncated }
                let length = Int(raw[index]) << 8 | Int(raw[index + 1])
                guard length >= 2 else { return .malformed }
                index += length
                if code == 0xDA {
                    // Entropy-coded data follows the scan header: skip to the next real marker.
                    // Inside it, FF 00 is a stuffed 0xFF and FF D0...D7 are restart markers.
                    while true {
                        guard index < count else { return .truncated }
                        if raw[index] != 0xFF {
                            index += 1
                            continue
                        }
                        guard index + 1 < count else { return .truncated }
                        let next = raw[index + 1]
                        if next == 0x00 || (0xD0...0xD7).contains(next) {
                            index += 2
                        } else {
                            break // A marker, possibly after fill bytes: the outer walk reads it.
                        }
                    }
                }
            }
        }
    }

    // MARK: - GIF

    private static func gifIsComplete(_ bytes: HeaderBytes) -> Bool {
        guard bytes.matches(Array("GIF8".utf8), at: 0), let screenFlags = bytes.u8(10) else { return false }
        var offset = 13 + colorTableLength(flags: screenFlags)
        while let introducer = bytes.u8(offset) {
            switch introducer {
            case 0x3B: // Trailer.
                return true
            case 0x21: // Extension: introducer, label, sub-blocks.
                guard let next = skipSubBlocks(bytes, from: offset + 2) else { return false }
                offset = next
            case 0x2C: // Image descriptor (10 bytes), local colour table, LZW code size, sub-blocks.
                guard let imageFlags = bytes.u8(offset + 9) else { return false }
                let dataStart = offset + 10 + colorTableLength(flags: imageFlags) + 1
                guard let next = skipSubBlocks(bytes, from: dataStart) else { return false }
                offset = next
            default:
                return false
            }
        }
        return false
    }

    /// Bytes in the colour table a GIF screen or image descriptor's packed flags announce.
    private static func colorTableLength(flags: UInt8) -> Int {
        flags & 0x80 == 0 ? 0 : 3 << (Int(flags & 0x07) + 1)
    }

    /// The offset just after a chain of sub-blocks and its zero terminator, or `nil` if truncated.
    private static func skipSubBlocks(_ bytes: HeaderBytes, from start: Int) -> Int? {
        var offset = start
        while let length = bytes.u8(offset) {
            offset += 1
            if length == 0 { return offset }
            offset += Int(length)
        }
        return nil
    }

    // MARK: - WebP

    private static func webPIsComplete(_ bytes: HeaderBytes) -> Bool {
        guard bytes.matches(Array("RIFF".utf8), at: 0), bytes.matches(Array("WEBP".utf8), at: 8),
              let riffSize = bytes.u32le(4),
              let expected = Int(exactly: UInt64(riffSize) + 8)
        else { return false }
        return bytes.count == expected || bytes.count == expected + 1
    }

    // MARK: - HEIC / AVIF

    private static func isobmffIsComplete(_ bytes: HeaderBytes) -> Bool {
        guard bytes.u32be(4) == HeaderBytes.fourCC("ftyp") else { return false }
        var meta: Box?
        var hasMovie = false
        /// A file cut exactly at a box boundary still adds up, so the item data must be there
        /// too: there must be a `meta` (or, for sequences, `moov`) box, and every extent `iloc`
        /// places in the file must end within it.
        func contentArrived() -> Bool {
            if let meta {
                return (itemDataEnd(in: meta, bytes) ?? 0) <= bytes.count
            }
            return hasMovie
        }
        var offset = 0
        while offset < bytes.count {
            guard let size32 = bytes.u32be(offset), let type = bytes.u32be(offset + 4) else { return false }
            let headerLength: Int
            let size: Int
            switch size32 {
            case 0: // The last box runs to the end of the file.
                headerLength = 8
                size = bytes.count - offset
            case 1:
                guard let large = bytes.u64be(offset + 8), let value = Int(exactly: large), value >= 16
                else { return false }
                headerLength = 16
                size = value
            default:
                guard let value = Int(exactly: size32), value >= 8 else { return false }
                headerLength = 8
                size = value
            }
            guard let next = HeaderBytes.end(of: offset, length: size) else { return false }
            if type == HeaderBytes.fourCC("meta"), meta == nil {
                meta = Box(type: type, contentStart: offset + headerLength, contentEnd: min(next, bytes.count))
            } else if type == HeaderBytes.fourCC("moov") {
                hasMovie = true
            }
            offset = next
        }
        return offset == bytes.count && contentArrived()
    }
}
