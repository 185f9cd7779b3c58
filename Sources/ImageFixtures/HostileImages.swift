import Foundation

/// Crafted image bodies that once crashed or stalled the header parsers: each is a regression
/// input for the tests, a seed for the fuzz targets (`Fuzz/`), and a case of the parser
/// benchmark. Hostile on purpose; none is a valid image.
public enum HostileImages {
    /// A 24-byte BigTIFF whose first directory declares 0x0666666666666666 entries: the entries
    /// alone (20 bytes each) fit in 64 bits, the count and next-offset fields added to them do not.
    public static var bigTIFFWithOverflowingDirectory: Data {
        var bytes: [UInt8] = [0x49, 0x49, 0x2B, 0x00, 0x08, 0x00, 0x00, 0x00]
        bytes += ContainerWriters.u64le(16) // The first directory's offset.
        bytes += ContainerWriters.u64le(0x0666_6666_6666_6666) // Its entry count.
        return Data(bytes)
    }

    /// A 54-byte icon of two entries: the first points past the end, the second at a bitmap
    /// header declaring 0x40000001 x 0x7FFFFFFE pixels (half of them the mask's rows) at 64
    /// bits per pixel, whose header, palette and rows add up past any offset.
    public static var icoWithOverflowingBitmap: Data {
        var bytes: [UInt8] = [0, 0, 1, 0] + ContainerWriters.u16le(2)
        bytes += [16, 16, 0, 0] + ContainerWriters.u16le(1) + ContainerWriters.u16le(32)
            + ContainerWriters.u32le(1024) + ContainerWriters.u32le(4096)
        bytes += [16, 16, 0, 0] + ContainerWriters.u16le(1) + ContainerWriters.u16le(64)
            + ContainerWriters.u32le(1024) + ContainerWriters.u32le(38)
        bytes += ContainerWriters.u32le(40) + ContainerWriters.u32le(0x4000_0001) + ContainerWriters.u32le(0x7FFF_FFFE)
        bytes += ContainerWriters.u16le(1) + ContainerWriters.u16le(64)
        return Data(bytes)
    }

    /// An icon whose `entries` directory entries all point at one PNG of `emptyChunks` empty
    /// ancillary chunks and no end: a check that walks the PNG once per entry does
    /// `entries * emptyChunks` steps. `icoSharingOnePNG(entries: 2_600, emptyChunks: 2_000)` is
    /// about 64 KB.
    public static func icoSharingOnePNG(entries: Int, emptyChunks: Int) -> Data {
        let pngOffset = 6 + entries * 16
        var bytes: [UInt8] = [0, 0, 1, 0] + ContainerWriters.u16le(entries)
        for _ in 0..<entries {
            bytes += [16, 16, 0, 0] + ContainerWriters.u16le(1) + ContainerWriters.u16le(32)
                + ContainerWriters.u32le(12 * emptyChunks + 8) + ContainerWriters.u32le(pngOffset)
        }
        bytes += [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let emptyChunk = ContainerWriters.u32be(0) + Array("tEXt".utf8) + ContainerWriters.u32be(0)
        for _ in 0..<emptyChunks {
            bytes += emptyChunk
        }
        return Data(bytes)
    }
}
