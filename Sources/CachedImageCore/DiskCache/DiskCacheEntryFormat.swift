import Foundation

/// The on-disk layout of one cache entry: a small binary header, then the original bytes.
///
/// All integers are little-endian. Layout of version 2:
///
/// | offset | size | field                                                      |
/// |--------|------|------------------------------------------------------------|
/// | 0      | 4    | magic `"CIDK"`                                             |
/// | 4      | 2    | format version (2)                                         |
/// | 6      | 2    | reserved, 0                                                |
/// | 8      | 4    | header length `H`, including the trailing header checksum  |
/// | 12     | 8    | body length `B` (the file is exactly `H + B` bytes)        |
/// | 20     | 8    | body checksum (``FastChecksum``)                           |
/// | 28     | 4    | key length `K`                                             |
/// | 32     | K    | key, UTF-8                                                 |
/// | 32+K   | ...  | metadata (see below)                                       |
/// | H-8    | 8    | header checksum over bytes `0..<H-8`                       |
/// | H      | B    | body                                                       |
///
/// Metadata: two flags bytes (bit 0 content type, 1 ETag, 2 Last-Modified, 3 freshness lifetime
/// present, 4 must-revalidate, 5 immutable, 6 no-cache, 7 stale-if-error present,
/// 8 stale-while-revalidate present, 9 Last-Modified age present, 10 Vary present),
/// `storedAt` and `initialAge` as IEEE-754 bit patterns (8 bytes each), then the present
/// durations in bit order (freshness lifetime, stale-if-error, stale-while-revalidate,
/// Last-Modified age; 8 bytes each), each present string (content type, ETag, Last-Modified)
/// as a 4-byte length plus UTF-8, and, when `Vary` is present, a 4-byte field count followed
/// by each field's name (length + UTF-8), a value-present byte (0 or 1) and the value if
/// present, and, when the response is present (bit 11), its status code (2 bytes), a 4-byte
/// field count and each field's name and value (length + UTF-8), sorted by name. Files without
/// bit 11 (written before the response was kept) stay readable, with no response. Binary fields instead of `JSONEncoder` keep a read within a few microseconds of a
/// raw file read; bump ``version`` whenever `CachedResponseMetadata` gains a field (a test
/// guards its field count). Version 1 files are treated as misses.
enum DiskCacheEntryFormat {
    /// The parsed, validated header of an entry file.
    struct Header {
        var headerLength: Int
        var bodyLength: Int
        var bodyChecksum: UInt64
        /// Where the key's UTF-8 bytes are inside the header bytes.
        var keyRange: Range<Int>
        var metadata: CachedResponseMetadata
    }

    static let magic: UInt32 = 0x4B44_4943 // "CIDK" as little-endian bytes
    static let version: UInt16 = 2
    /// Bytes before the key.
    static let fixedLength = 32
    static let checksumLength = 8
    private static let minimumMetadataLength = 18
    /// The smallest possible valid file.
    static let minimumHeaderLength = fixedLength + minimumMetadataLength + checksumLength
    /// Headers larger than this are rejected as corrupt (protects against huge allocations).
    static let maximumHeaderLength = 1 << 20
    /// How many bytes a reader fetches first, enough for the header of any ordinary key.
    static let readAheadLength = 4096

    /// Seeds the header checksum (internal so tests can reseal a header they damaged).
    static let headerSeed: UInt64 = 0x4844_5243
    private static let bodySeed: UInt64 = 0x4244_5943

    private enum Flag {
        static let contentType: UInt16 = 1 << 0
        static let etag: UInt16 = 1 << 1
        static let lastModified: UInt16 = 1 << 2
        static let freshnessLifetime: UInt16 = 1 << 3
        static let mustRevalidate: UInt16 = 1 << 4
        static let immutable: UInt16 = 1 << 5
        static let noCache: UInt16 = 1 << 6
        static let staleIfError: UInt16 = 1 << 7
        static let staleWhileRevalidate: UInt16 = 1 << 8
        static let lastModifiedAge: UInt16 = 1 << 9
        static let vary: UInt16 = 1 << 10
        static let response: UInt16 = 1 << 11
        static let all: UInt16 = 0x0FFF
    }

    // MARK: Checksums

    static func bodyChecksum(_ body: UnsafeRawBufferPointer) -> UInt64 {
        FastChecksum.checksum(body, seed: bodySeed)
    }

    static func bodyChecksum(_ body: Data) -> UInt64 {
        body.withUnsafeBytes { bodyChecksum($0) }
    }

    // MARK: Encoding

    /// The header length an entry with this key and metadata will have.
    static func headerLength(keyByteCount: Int, metadata: CachedResponseMetadata) -> Int {
        var length = fixedLength + keyByteCount + minimumMetadataLength + checksumLength
        for duration in durations(of: metadata) where duration != nil { length += 8 }
        for string in [metadata.contentType, metadata.etag, metadata.lastModified] {
            if let string { length += 4 + string.utf8.count }
        }
        if !metadata.vary.isEmpty {
            length += 4
            for field in metadata.vary {
                length += 4 + field.name.utf8.count + 1
                if let value = field.value { length += 4 + value.utf8.count }
            }
        }
        if let response = metadata.response {
            length += 2 + 4
            for (name, value) in response.headerFields {
                length += 8 + name.utf8.count + value.utf8.count
            }
        }
        return length
    }

    /// The complete header for `key`, `metadata` and a body of `bodyLength` bytes.
    static func encodeHeader(
        key: String,
        metadata: CachedResponseMetadata,
        bodyLength: Int,
        bodyChecksum: UInt64
    ) -> [UInt8] {
        let keyBytes = Array(key.utf8)
        let length = headerLength(keyByteCount: keyBytes.count, metadata: metadata)
        var bytes = [UInt8]()
        bytes.reserveCapacity(length)
        append(magic, to: &bytes)
        append(version, to: &bytes)
        append(UInt16(0), to: &bytes)
        append(UInt32(truncatingIfNeeded: length), to: &bytes)
        append(UInt64(bodyLength), to: &bytes)
        append(bodyChecksum, to: &bytes)
        append(UInt32(truncatingIfNeeded: keyBytes.count), to: &bytes)
        bytes.append(contentsOf: keyBytes)

        var flags: UInt16 = 0
        if metadata.contentType != nil { flags |= Flag.contentType }
        if metadata.etag != nil { flags |= Flag.etag }
        if metadata.lastModified != nil { flags |= Flag.lastModified }
        if metadata.freshnessLifetime != nil { flags |= Flag.freshnessLifetime }
        if metadata.mustRevalidate { flags |= Flag.mustRevalidate }
        if metadata.isImmutable { flags |= Flag.immutable }
        if metadata.noCache { flags |= Flag.noCache }
        if metadata.staleIfError != nil { flags |= Flag.staleIfError }
        if metadata.staleWhileRevalidate != nil { flags |= Flag.staleWhileRevalidate }
        if metadata.lastModifiedAge != nil { flags |= Flag.lastModifiedAge }
        if !metadata.vary.isEmpty { flags |= Flag.vary }
        if metadata.response != nil { flags |= Flag.response }
        append(flags, to: &bytes)
        append(metadata.storedAt.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
        append(metadata.initialAge.bitPattern, to: &bytes)
        for duration in durations(of: metadata) {
            if let duration { append(duration.bitPattern, to: &bytes) }
        }
        for string in [metadata.contentType, metadata.etag, metadata.lastModified] {
            if let string { appendString(string, to: &bytes) }
        }
        if !metadata.vary.isEmpty {
            append(UInt32(truncatingIfNeeded: metadata.vary.count), to: &bytes)
            for field in metadata.vary {
                appendString(field.name, to: &bytes)
                bytes.append(field.value == nil ? 0 : 1)
                if let value = field.value { appendString(value, to: &bytes) }
            }
        }
        if let response = metadata.response {
            append(UInt16(clamping: response.statusCode), to: &bytes)
            append(UInt32(truncatingIfNeeded: response.headerFields.count), to: &bytes)
            for (name, value) in response.headerFields.sorted(by: { $0.key < $1.key }) {
                appendString(name, to: &bytes)
                appendString(value, to: &bytes)
            }
        }
        append(FastChecksum.checksum(bytes, seed: headerSeed), to: &bytes)
        return bytes
    }

    /// The optional durations, in encoding order (matching flag bits 3, 7, 8, 9).
    private static func durations(of metadata: CachedResponseMetadata) -> [TimeInterval?] {
        [metadata.freshnessLifetime, metadata.staleIfError, metadata.staleWhileRevalidate, metadata.lastModifiedAge]
    }

    private static func appendString(_ string: String, to bytes: inout [UInt8]) {
        let utf8 = Array(string.utf8)
        append(UInt32(truncatingIfNeeded: utf8.count), to: &bytes)
        bytes.append(contentsOf: utf8)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    // MARK: Decoding

    /// The header length a file declares, if its first bytes carry the right magic and version
    /// and the length is plausible for a file of `fileSize` bytes.
    static func declaredHeaderLength(_ prefix: UnsafeRawBufferPointer, fileSize: Int) -> Int? {
        var reader = Reader(prefix)
        guard reader.read(UInt32.self) == magic,
              reader.read(UInt16.self) == version,
              reader.read(UInt16.self) == 0,
              let declared = reader.read(UInt32.self)
        else { return nil }
        // `Int(exactly:)`, like every length below: a `UInt32` of 2^31 or more does not fit a
        // 32-bit `Int` (watchOS), and any process that can write the directory can reseal a header.
        guard let length = Int(exactly: declared), length >= minimumHeaderLength, length <= maximumHeaderLength, length <= fileSize else {
            return nil
        }
        return length
    }

    /// Parses and validates a complete header. `bytes` must start at the beginning of the file
    /// and hold at least the declared header length. Returns `nil` for anything inconsistent:
    /// wrong magic or version, bad header checksum, a body length that does not match
    /// `fileSize`, malformed metadata or trailing garbage in the header.
    static func parseHeader(_ bytes: UnsafeRawBufferPointer, fileSize: Int) -> Header? {
        guard let headerLength = declaredHeaderLength(bytes, fileSize: fileSize),
              headerLength <= bytes.count
        else { return nil }
        let checksummed = UnsafeRawBufferPointer(rebasing: bytes[0..<(headerLength - checksumLength)])
        var trailer = Reader(UnsafeRawBufferPointer(rebasing: bytes[(headerLength - checksumLength)..<headerLength]))
        guard trailer.read(UInt64.self) == FastChecksum.checksum(checksummed, seed: headerSeed) else {
            return nil
        }

        var reader = Reader(checksummed)
        reader.offset = 12
        guard let bodyLength64 = reader.read(UInt64.self),
              bodyLength64 == UInt64(fileSize - headerLength),
              let bodyChecksum = reader.read(UInt64.self),
              let keyLength = reader.read(UInt32.self),
              let keyRange = Int(exactly: keyLength).flatMap({ reader.skip($0) }),
              let flags = reader.read(UInt16.self),
              flags & ~Flag.all == 0,
              let storedAtBits = reader.read(UInt64.self),
              let initialAgeBits = reader.read(UInt64.self)
        else { return nil }

        // Four optional durations in flag-bit order, without an array on the disk-hit path.
        var lifetime, staleIfError, staleWhileRevalidate, lastModifiedAge: TimeInterval?
        guard reader.readDuration(if: flags & Flag.freshnessLifetime != 0, into: &lifetime),
              reader.readDuration(if: flags & Flag.staleIfError != 0, into: &staleIfError),
              reader.readDuration(if: flags & Flag.staleWhileRevalidate != 0, into: &staleWhileRevalidate),
              reader.readDuration(if: flags & Flag.lastModifiedAge != 0, into: &lastModifiedAge)
        else { return nil }
        var contentType, etag, lastModified: String?
        guard reader.readString(if: flags & Flag.contentType != 0, into: &contentType),
              reader.readString(if: flags & Flag.etag != 0, into: &etag),
              reader.readString(if: flags & Flag.lastModified != 0, into: &lastModified)
        else { return nil }
        var vary: [VaryField] = []
        if flags & Flag.vary != 0 {
            // Each field takes at least 5 bytes: bound the count before reserving.
            guard let count = reader.read(UInt32.self).flatMap({ Int(exactly: $0) }), count > 0,
                  count <= (checksummed.count - reader.offset) / 5
            else { return nil }
            vary.reserveCapacity(count)
            for _ in 0..<count {
                guard let name = reader.readString(), let hasValue = reader.read(UInt8.self), hasValue <= 1 else {
                    return nil
                }
                var value: String?
                if hasValue == 1 {
                    guard let string = reader.readString() else { return nil }
                    value = string
                }
                vary.append(VaryField(name: name, value: value))
            }
        }
        var response: CachedHTTPResponse?
        if flags & Flag.response != 0 {
            // Each field takes at least 8 bytes: bound the count before reserving.
            guard let status = reader.read(UInt16.self), let count = reader.read(UInt32.self).flatMap({ Int(exactly: $0) }),
                  count <= (checksummed.count - reader.offset) / 8
            else { return nil }
            var fields: [String: String] = [:]
            fields.reserveCapacity(count)
            for _ in 0..<count {
                guard let name = reader.readString(), let value = reader.readString() else { return nil }
                fields[name] = value
            }
            response = CachedHTTPResponse(statusCode: Int(status), headerFields: fields)
        }
        guard reader.offset == checksummed.count else { return nil }

        var metadata = CachedResponseMetadata(
            contentType: contentType,
            etag: etag,
            lastModified: lastModified,
            storedAt: Date(timeIntervalSinceReferenceDate: TimeInterval(bitPattern: storedAtBits)),
            initialAge: TimeInterval(bitPattern: initialAgeBits),
            freshnessLifetime: lifetime,
            mustRevalidate: flags & Flag.mustRevalidate != 0,
            isImmutable: flags & Flag.immutable != 0,
            noCache: flags & Flag.noCache != 0,
            staleIfError: staleIfError,
            staleWhileRevalidate: staleWhileRevalidate,
            lastModifiedAge: lastModifiedAge,
            response: response
        )
        metadata.vary = vary
        return Header(
            headerLength: headerLength,
            bodyLength: Int(bodyLength64),
            bodyChecksum: bodyChecksum,
            keyRange: keyRange,
            metadata: metadata
        )
    }

    /// Whether the key stored in `header` is exactly `key` (byte-for-byte UTF-8).
    static func storedKey(of header: Header, in bytes: UnsafeRawBufferPointer, equals key: String) -> Bool {
        let stored = UnsafeRawBufferPointer(rebasing: bytes[header.keyRange])
        var key = key
        return key.withUTF8 { utf8 in
            utf8.count == stored.count && utf8.elementsEqual(stored)
        }
    }

    /// The key stored in `header`, if it is valid UTF-8.
    static func storedKey(of header: Header, in bytes: UnsafeRawBufferPointer) -> String? {
        String(bytes: UnsafeRawBufferPointer(rebasing: bytes[header.keyRange]), encoding: .utf8)
    }

    /// A bounds-checked little-endian cursor over raw bytes.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        init(_ bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        mutating func read<T: FixedWidthInteger>(_: T.Type) -> T? {
            let size = MemoryLayout<T>.size
            guard let base = bytes.baseAddress, bytes.count - offset >= size else { return nil }
            let value = T(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
            offset += size
            return value
        }

        mutating func skip(_ count: Int) -> Range<Int>? {
            guard count >= 0, bytes.count - offset >= count else { return nil }
            defer { offset += count }
            return offset..<(offset + count)
        }

        /// When `present`, reads an IEEE-754 duration into `value`; `false` when bytes run out.
        mutating func readDuration(if present: Bool, into value: inout TimeInterval?) -> Bool {
            guard present else { return true }
            guard let bits = read(UInt64.self) else { return false }
            value = TimeInterval(bitPattern: bits)
            return true
        }

        /// When `present`, reads a string into `value`; `false` when bytes run out or are not UTF-8.
        mutating func readString(if present: Bool, into value: inout String?) -> Bool {
            guard present else { return true }
            value = readString()
            return value != nil
        }

        /// A length-prefixed UTF-8 string, or `nil` when bytes run out or are not valid UTF-8.
        mutating func readString() -> String? {
            guard let length = read(UInt32.self).flatMap({ Int(exactly: $0) }), let range = skip(length) else { return nil }
            let utf8 = UnsafeRawBufferPointer(rebasing: bytes[range])
            // The standard library's decoder: with Foundation's `String(bytes:encoding:)` a whole
            // header parse took 3.3x the instructions. Kept strict: the decoder repairs invalid
            // UTF-8, so the decoded bytes must be the stored ones.
            var string = String(decoding: utf8, as: UTF8.self)
            let isExact = string.withUTF8 { decoded in
                decoded.count == utf8.count && (utf8.isEmpty || memcmp(decoded.baseAddress!, utf8.baseAddress!, utf8.count) == 0)
            }
            return isExact ? string : nil
        }
    }
}
