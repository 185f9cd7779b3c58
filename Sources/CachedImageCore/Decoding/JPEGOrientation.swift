import Foundation

/// A JPEG's EXIF orientation (tag 0x0112 of IFD0 in its `APP1 Exif` segment), read from its
/// first bytes: orientations 5 to 8 turn the stored pixels a quarter, so the image shows with
/// width and height swapped (``ImageInfo`` reports the size as stored; `ImageIODecoder` applies
/// the orientation to the pixels).
enum JPEGOrientation {
    /// Whether `data` (a JPEG's first bytes at least up to its `APP1` segment) shows its pixels
    /// a quarter turn away from how they are stored; `false` when it says nothing or cannot be read.
    static func swapsSides(_ data: Data) -> Bool {
        HeaderBytes.with(data) { bytes in
            guard let orientation = orientation(in: bytes) else { return false }
            return (5...8).contains(orientation)
        }
    }

    static func orientation(in bytes: HeaderBytes) -> UInt16? {
        guard bytes.u16be(0) == 0xFFD8 else { return nil }
        var offset = 2
        // Segments up to the first scan or frame: APP1 comes before them.
        while let marker = bytes.u16be(offset), marker & 0xFF00 == 0xFF00, let length = bytes.u16be(offset + 2) {
            let type = marker & 0xFF
            if type == 0xDA || (0xC0...0xCF).contains(type) && type != 0xC4 && type != 0xC8 && type != 0xCC { return nil }
            if type == 0xE1, bytes.u32be(offset + 4) == 0x4578_6966, bytes.u16be(offset + 8) == 0 { // "Exif\0\0"
                return tiffOrientation(in: bytes, at: offset + 10, end: offset + 2 + Int(length))
            }
            offset += 2 + Int(length)
        }
        return nil
    }

    /// Tag 0x0112 of the TIFF structure at `start` (its IFD0), within `end`.
    private static func tiffOrientation(in bytes: HeaderBytes, at start: Int, end: Int) -> UInt16? {
        let littleEndian: Bool
        switch bytes.u16be(start) {
        case 0x4949: littleEndian = true   // "II"
        case 0x4D4D: littleEndian = false  // "MM"
        default: return nil
        }
        func u16(_ at: Int) -> UInt16? { at + 2 <= end ? (littleEndian ? bytes.u16le(at) : bytes.u16be(at)) : nil }
        func u32(_ at: Int) -> UInt32? { at + 4 <= end ? (littleEndian ? bytes.u32le(at) : bytes.u32be(at)) : nil }
        guard u16(start + 2) == 42, let ifdOffset = u32(start + 4), ifdOffset < UInt32(Int32.max) else { return nil }
        let ifd = start + Int(ifdOffset)
        guard let count = u16(ifd) else { return nil }
        for index in 0..<Int(min(count, 512)) {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112 {
                guard u16(entry + 2) == 3 else { return nil } // SHORT
                return u16(entry + 8)
            }
        }
        return nil
    }
}
