/// A stable, process-independent hash of a cache key, used as the entry's file name.
///
/// Swift's `Hasher` is randomly seeded per process, so it cannot name files that must be found
/// again after a relaunch. This is 128-bit FNV-1a over the key's UTF-8 bytes, rendered as 32
/// lowercase hex characters: only these characters ever touch the file system, whatever the key
/// contains. Collisions are not trusted: the full key is stored in the file and verified on read.
enum KeyHasher {
    /// The 32-character lowercase hex FNV-1a-128 digest of `key`'s UTF-8 bytes.
    static func fileName(for key: String) -> String {
        // FNV-1a 128-bit offset basis.
        var high: UInt64 = 0x6C62_272E_07BB_0142
        var low: UInt64 = 0x62B8_2175_6295_C58D
        for byte in key.utf8 {
            low ^= UInt64(byte)
            // Multiply the 128-bit state by the FNV prime 2^88 + 0x13B, modulo 2^128.
            let product = low.multipliedFullWidth(by: 0x13B)
            high = high &* 0x13B &+ product.high &+ (low << 24)
            low = product.low
        }
        return hex(high, low)
    }

    /// Whether `name` looks like a file name produced by ``fileName(for:)``.
    static func isFileName(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard utf8.count == 32 else { return false }
        return utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func hex(_ high: UInt64, _ low: UInt64) -> String {
        let digits: StaticString = "0123456789abcdef"
        var bytes = [UInt8](repeating: 0, count: 32)
        digits.withUTF8Buffer { table in
            for index in 0..<16 {
                let shift = UInt64(60 - 4 * index)
                bytes[index] = table[Int((high >> shift) & 0xF)]
                bytes[16 + index] = table[Int((low >> shift) & 0xF)]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
