/// A stable, process-independent hash of a cache key, used as the entry's file name.
///
/// Swift's `Hasher` is randomly seeded per process, so it cannot name files that must be found
/// again after a relaunch. This is 128-bit FNV-1a over the key's UTF-8 bytes, rendered as 32
/// lowercase hex characters: only these characters ever touch the file system, whatever the key
/// contains. Collisions are not trusted: the full key is stored in the file and verified on read.
enum KeyHasher {
    /// The FNV-1a-128 digest of `key`'s UTF-8 bytes.
    static func name(for key: String) -> DiskCacheEntryName {
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
        return DiskCacheEntryName(high: high, low: low)
    }

    /// The 32-character lowercase hex FNV-1a-128 digest of `key`'s UTF-8 bytes.
    static func fileName(for key: String) -> String {
        name(for: key).fileName
    }

    /// Whether `name` looks like a file name produced by ``fileName(for:)``.
    static func isFileName(_ name: String) -> Bool {
        DiskCacheEntryName(fileName: name) != nil
    }
}
