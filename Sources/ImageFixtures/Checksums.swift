/// CRC-32 (as used by PNG chunks) and Adler-32 (as used by zlib streams).
enum Checksums {
    /// The reflected CRC-32 table for polynomial 0xEDB88320.
    private static let crcTable: [UInt32] = (0..<256).map { entry in
        var value = UInt32(entry)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }

    /// CRC-32 of `bytes`, continuing from `crc` (pass the previous result to chain calls).
    static func crc32<Bytes: Sequence<UInt8>>(_ bytes: Bytes, continuing crc: UInt32 = 0) -> UInt32 {
        var value = ~crc
        for byte in bytes {
            value = crcTable[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8)
        }
        return ~value
    }

    /// Adler-32 of `bytes`.
    static func adler32(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let modulus: UInt32 = 65521
        var a: UInt32 = 1
        var b: UInt32 = 0
        var index = 0
        while index < bytes.count {
            // 5552 bytes is the most that can be summed before `b` could overflow 32 bits.
            let end = min(index + 5552, bytes.count)
            while index < end {
                a += UInt32(bytes[index])
                b += a
                index += 1
            }
            a %= modulus
            b %= modulus
        }
        return b << 16 | a
    }
}
