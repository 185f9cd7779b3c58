/// The name of one entry file: the 128-bit hash of its key (``KeyHasher``), kept as two words.
///
/// The index keys its records by this value instead of the 32-character file name, so opening a
/// cache from its index snapshot allocates no string per entry and a lookup hashes 16 bytes. The
/// file name (32 lowercase hex digits) is made only when a file is opened.
struct DiskCacheEntryName: Hashable, Sendable {
    var high: UInt64
    var low: UInt64

    /// The file name: 32 lowercase hex digits, high word first.
    var fileName: String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 32) { buffer in
            digits.withUTF8Buffer { table in
                for index in 0..<16 {
                    let shift = UInt64(60 - 4 * index)
                    buffer[index] = table[Int((high >> shift) & 0xF)]
                    buffer[16 + index] = table[Int((low >> shift) & 0xF)]
                }
            }
            return 32
        }
    }

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses a file name made by ``fileName``; `nil` for anything else (other files, upper case).
    init?(fileName: String) {
        var utf8 = fileName
        let parsed: (UInt64, UInt64)? = utf8.withUTF8 { bytes in
            guard bytes.count == 32 else { return nil }
            var words: (UInt64, UInt64) = (0, 0)
            for (index, byte) in bytes.enumerated() {
                let digit: UInt8
                switch byte {
                case 0x30...0x39: digit = byte - 0x30
                case 0x61...0x66: digit = byte - 0x61 + 10
                default: return nil
                }
                if index < 16 {
                    words.0 = words.0 << 4 | UInt64(digit)
                } else {
                    words.1 = words.1 << 4 | UInt64(digit)
                }
            }
            return words
        }
        guard let parsed else { return nil }
        self.init(high: parsed.0, low: parsed.1)
    }
}
