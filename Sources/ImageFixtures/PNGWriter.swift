import Foundation

/// Builds PNG files: 8-bit RGB or RGBA, filter type 0 on every row, zlib stream made of stored
/// (uncompressed) deflate blocks, so no compression library is needed.
enum PNGWriter {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Largest IDAT payload written; the zlib stream is split across several IDAT chunks.
    static let maxIDATLength = 65_536

    /// Signature plus IHDR.
    static func header(width: UInt32, height: UInt32, hasAlpha: Bool) -> Data {
        var data = Data(signature)
        var ihdr = [UInt8]()
        ihdr.append(contentsOf: bigEndian(width))
        ihdr.append(contentsOf: bigEndian(height))
        // Bit depth 8, colour type 6 (RGBA) or 2 (RGB), deflate, adaptive filtering, no interlace.
        ihdr.append(contentsOf: [8, hasAlpha ? 6 : 2, 0, 0, 0])
        appendChunk("IHDR", ihdr, to: &data)
        return data
    }

    /// A complete PNG whose filtered scanlines (`1 + width * channels` bytes per row, the first
    /// being the filter type) are `scanlines`.
    static func file(width: Int, height: Int, hasAlpha: Bool, scanlines: [UInt8]) -> Data {
        var data = header(width: UInt32(width), height: UInt32(height), hasAlpha: hasAlpha)
        let stream = storedZlibStream(scanlines)
        var offset = 0
        while offset < stream.count {
            let end = min(offset + maxIDATLength, stream.count)
            appendChunk("IDAT", stream[offset..<end], to: &data)
            offset = end
        }
        appendChunk("IEND", [], to: &data)
        return data
    }

    /// A zlib stream (RFC 1950) holding `raw` in stored deflate blocks (RFC 1951, BTYPE 00).
    static func storedZlibStream(_ raw: [UInt8]) -> [UInt8] {
        let blockLimit = 65_535
        let blockCount = max(1, (raw.count + blockLimit - 1) / blockLimit)
        var stream = [UInt8]()
        stream.reserveCapacity(raw.count + blockCount * 5 + 6)
        stream.append(contentsOf: [0x78, 0x01]) // Deflate, 32 KiB window, no dictionary; FCHECK ok.
        var offset = 0
        for block in 0..<blockCount {
            let end = min(offset + blockLimit, raw.count)
            let length = UInt16(end - offset)
            stream.append(block == blockCount - 1 ? 0x01 : 0x00) // BFINAL, BTYPE = stored.
            stream.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8)])
            stream.append(contentsOf: [UInt8(~length & 0xFF), UInt8(~length >> 8)])
            stream.append(contentsOf: raw[offset..<end])
            offset = end
        }
        let adler = raw.withUnsafeBufferPointer(Checksums.adler32)
        stream.append(contentsOf: bigEndian(adler))
        return stream
    }

    static func appendChunk<Payload: Collection<UInt8>>(_ type: String, _ payload: Payload, to data: inout Data) {
        let typeBytes = Array(type.utf8)
        data.append(contentsOf: bigEndian(UInt32(payload.count)))
        data.append(contentsOf: typeBytes)
        data.append(contentsOf: payload)
        let crc = Checksums.crc32(payload, continuing: Checksums.crc32(typeBytes))
        data.append(contentsOf: bigEndian(crc))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
