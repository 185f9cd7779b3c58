import Foundation

/// A bounds-checked, zero-based view over image bytes for header parsing.
///
/// Every read returns `nil` instead of trapping when it would go past the end (or before the
/// start), so parsers built on it cannot crash on truncated or hostile input. It reads raw
/// memory: `Data`'s own subscript makes a dynamic exclusivity check per byte, half of a
/// parser's time. Make one with ``with(_:_:)``; it must not outlive that call.
struct HeaderBytes {
    let raw: UnsafeRawBufferPointer

    init(_ raw: UnsafeRawBufferPointer) {
        self.raw = raw
    }

    /// Calls `body` with a view of `data`'s bytes, valid only during the call.
    static func with<Result>(_ data: Data, _ body: (HeaderBytes) throws -> Result) rethrows -> Result {
        try data.withUnsafeBytes { try body(HeaderBytes($0)) }
    }

    var count: Int { raw.count }

    /// `true` when `length` bytes starting at `offset` are all present.
    func contains(_ offset: Int, length: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= count && length <= count - offset
    }

    func u8(_ offset: Int) -> UInt8? {
        guard contains(offset, length: 1) else { return nil }
        return raw[offset]
    }

    func u16be(_ offset: Int) -> UInt16? {
        guard contains(offset, length: 2) else { return nil }
        return UInt16(raw[offset]) << 8 | UInt16(raw[offset + 1])
    }

    func u16le(_ offset: Int) -> UInt16? {
        guard contains(offset, length: 2) else { return nil }
        return UInt16(raw[offset + 1]) << 8 | UInt16(raw[offset])
    }

    func u24le(_ offset: Int) -> UInt32? {
        guard contains(offset, length: 3) else { return nil }
        return UInt32(raw[offset + 2]) << 16 | UInt32(raw[offset + 1]) << 8 | UInt32(raw[offset])
    }

    func u32be(_ offset: Int) -> UInt32? {
        guard contains(offset, length: 4) else { return nil }
        return UInt32(raw[offset]) << 24 | UInt32(raw[offset + 1]) << 16 | UInt32(raw[offset + 2]) << 8 | UInt32(raw[offset + 3])
    }

    func u32le(_ offset: Int) -> UInt32? {
        guard contains(offset, length: 4) else { return nil }
        return UInt32(raw[offset + 3]) << 24 | UInt32(raw[offset + 2]) << 16 | UInt32(raw[offset + 1]) << 8 | UInt32(raw[offset])
    }

    func u64be(_ offset: Int) -> UInt64? {
        guard let high = u32be(offset), let low = u32be(offset + 4) else { return nil }
        return UInt64(high) << 32 | UInt64(low)
    }

    /// `true` when the bytes at `offset` equal `expected`.
    func matches(_ expected: [UInt8], at offset: Int) -> Bool {
        guard contains(offset, length: expected.count) else { return false }
        for (position, byte) in expected.enumerated() where raw[offset + position] != byte {
            return false
        }
        return true
    }

    /// `offset + length` when that does not overflow, else `nil`.
    static func end(of offset: Int, length: Int) -> Int? {
        let (sum, overflow) = offset.addingReportingOverflow(length)
        return overflow ? nil : sum
    }

    /// A four-character code such as `ftyp`, as the big-endian `UInt32` that files store.
    static func fourCC(_ text: StaticString) -> UInt32 {
        precondition(text.utf8CodeUnitCount == 4, "a four-character code has four ASCII characters")
        var value: UInt32 = 0
        let pointer = text.utf8Start
        for index in 0..<4 {
            value = value << 8 | UInt32(pointer[index])
        }
        return value
    }
}
