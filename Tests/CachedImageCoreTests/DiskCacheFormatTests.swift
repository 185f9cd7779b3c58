import CCachedImageChecksum
import Foundation
import Testing
import ImageFixtures
@testable import CachedImageCore

@Suite("DiskCache internals")
struct DiskCacheFormatTests {
    @Test("File names are FNV-1a-128 in lowercase hex")
    func keyHashVectors() {
        #expect(KeyHasher.fileName(for: "") == "6c62272e07bb014262b821756295c58d")
        #expect(KeyHasher.fileName(for: "a") == "d228cb696f1a8caf78912b704e4a8964")
        #expect(KeyHasher.fileName(for: "foobar") == "343e1662793c64bf6f0d3597ba446f18")
        #expect(KeyHasher.fileName(for: "https://example.com/a.png") == "cd659f5a4af1714ebdb91d8e12fc814e")
        #expect(KeyHasher.isFileName(KeyHasher.fileName(for: "../\u{0}")))
        #expect(!KeyHasher.isFileName("CD659F5A4AF1714EBDB91D8E12FC814E"))
        #expect(!KeyHasher.isFileName("tmp"))
    }

    @Test("Every field of CachedResponseMetadata is encoded (update the format when one is added)")
    func metadataFieldCount() {
        let metadata = CachedResponseMetadata(storedAt: Date())
        #expect(Mirror(reflecting: metadata).children.count == 14)
    }

    @Test("Headers round-trip every metadata combination", arguments: [false, true])
    func headerRoundTrip(_ full: Bool) throws {
        let metadata = full
            ? CachedResponseMetadata(
                contentType: "image/webp", etag: "W/\"1\"", lastModified: "yesterday",
                storedAt: Date(timeIntervalSinceReferenceDate: -12.75), initialAge: 3,
                freshnessLifetime: 0, mustRevalidate: false, isImmutable: true
            )
            : CachedResponseMetadata(storedAt: Date(timeIntervalSinceReferenceDate: 1e9))
        let key = "ключ\u{0}key"
        let header = DiskCacheEntryFormat.encodeHeader(key: key, metadata: metadata, bodyLength: 42, bodyChecksum: 7)
        #expect(header.count == DiskCacheEntryFormat.headerLength(keyByteCount: key.utf8.count, metadata: metadata))
        try header.withUnsafeBytes { raw in
            let parsed = try #require(DiskCacheEntryFormat.parseHeader(raw, fileSize: header.count + 42))
            #expect(parsed.metadata == metadata)
            #expect(parsed.bodyLength == 42)
            #expect(parsed.bodyChecksum == 7)
            #expect(DiskCacheEntryFormat.storedKey(of: parsed, in: raw) == key)
            #expect(DiskCacheEntryFormat.storedKey(of: parsed, in: raw, equals: key))
            #expect(!DiskCacheEntryFormat.storedKey(of: parsed, in: raw, equals: "ключ"))
            #expect(DiskCacheEntryFormat.parseHeader(raw, fileSize: header.count + 41) == nil)
        }
        // Every single-byte change of the header is rejected.
        for index in header.indices {
            var damaged = header
            damaged[index] ^= 0x10
            let parsed = damaged.withUnsafeBytes { DiskCacheEntryFormat.parseHeader($0, fileSize: damaged.count + 42) }
            #expect(parsed == nil, "byte \(index)")
        }
    }

    @Test("The stored response (status and header fields) round-trips; an entry written without it stays readable")
    func responseRoundTrip() throws {
        let response = CachedHTTPResponse(statusCode: 203, headerFields: ["X-Custom": "ключ", "Content-Type": "image/png", "Empty": ""])
        let withResponse = CachedResponseMetadata(etag: "\"e\"", storedAt: Date(timeIntervalSinceReferenceDate: 5e8), response: response)
        let header = DiskCacheEntryFormat.encodeHeader(key: "k", metadata: withResponse, bodyLength: 3, bodyChecksum: 9)
        #expect(header.count == DiskCacheEntryFormat.headerLength(keyByteCount: 1, metadata: withResponse))
        let parsed = header.withUnsafeBytes { DiskCacheEntryFormat.parseHeader($0, fileSize: header.count + 3) }
        #expect(parsed?.metadata == withResponse)
        for index in header.indices {
            var damaged = header
            damaged[index] ^= 0x10
            #expect(damaged.withUnsafeBytes { DiskCacheEntryFormat.parseHeader($0, fileSize: damaged.count + 3) } == nil, "byte \(index)")
        }
        // A version 2 header from before the response was kept (no flag bit 11) parses, with no response.
        var older = withResponse
        older.response = nil
        let olderHeader = DiskCacheEntryFormat.encodeHeader(key: "k", metadata: older, bodyLength: 3, bodyChecksum: 9)
        let parsedOlder = olderHeader.withUnsafeBytes { DiskCacheEntryFormat.parseHeader($0, fileSize: olderHeader.count + 3) }
        #expect(parsedOlder?.metadata == older)
        #expect(parsedOlder?.metadata.response == nil)
    }

    @Test("Caching-rule metadata (no-cache, stale-if-error, stale-while-revalidate, Last-Modified age, Vary) round-trips")
    func cachingRuleMetadataRoundTrip() throws {
        let variants = [
            CachedResponseMetadata(
                etag: "\"e\"", storedAt: Date(timeIntervalSinceReferenceDate: 5e8), initialAge: 1.5,
                freshnessLifetime: 60, mustRevalidate: true, isImmutable: true, noCache: true,
                staleIfError: 86_400, staleWhileRevalidate: 0, lastModifiedAge: 7_200.25
            ).withVary([
                VaryField(name: "accept", value: HTTPRequestDefaults.accept),
                VaryField(name: "accept-encoding", value: nil),
                VaryField(name: "x-ключ", value: ""),
            ]),
            CachedResponseMetadata(storedAt: Date(timeIntervalSinceReferenceDate: 0), staleWhileRevalidate: 30),
            CachedResponseMetadata(storedAt: Date(timeIntervalSinceReferenceDate: 0), lastModifiedAge: 0).withVary([VaryField(name: "", value: nil)]),
            CachedResponseMetadata(storedAt: Date(timeIntervalSinceReferenceDate: 0), noCache: true, staleIfError: 5),
        ]
        for metadata in variants {
            let header = DiskCacheEntryFormat.encodeHeader(key: "k", metadata: metadata, bodyLength: 3, bodyChecksum: 9)
            #expect(header.count == DiskCacheEntryFormat.headerLength(keyByteCount: 1, metadata: metadata))
            let parsed = header.withUnsafeBytes { DiskCacheEntryFormat.parseHeader($0, fileSize: header.count + 3) }
            #expect(parsed?.metadata == metadata)
        }
        // Every single-byte change of a header with Vary fields is rejected.
        let header = DiskCacheEntryFormat.encodeHeader(key: "k", metadata: variants[0], bodyLength: 0, bodyChecksum: 0)
        for index in header.indices {
            var damaged = header
            damaged[index] ^= 0x01
            #expect(damaged.withUnsafeBytes { DiskCacheEntryFormat.parseHeader($0, fileSize: damaged.count) } == nil, "byte \(index)")
        }
    }

    @Test("A header string that is not UTF-8 makes the file a miss, even under a matching checksum")
    func invalidUTF8IsRejected() throws {
        let metadata = CachedResponseMetadata(contentType: "image/jpeg", etag: "\"v1\"", storedAt: Date())
        let header = DiskCacheEntryFormat.encodeHeader(key: "k", metadata: metadata, bodyLength: 0, bodyChecksum: 0)
        let start = try #require(header.indices.first { header[$0..<min($0 + 10, header.count)].elementsEqual("image/jpeg".utf8) })
        func sealed(_ bytes: [UInt8]) -> [UInt8] {
            var bytes = bytes
            let end = bytes.count - DiskCacheEntryFormat.checksumLength
            let checksum = FastChecksum.checksum(Array(bytes[..<end]), seed: DiskCacheEntryFormat.headerSeed)
            withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(end..., with: $0) }
            return bytes
        }
        func parse(_ bytes: [UInt8]) -> DiskCacheEntryFormat.Header? {
            bytes.withUnsafeBytes { DiskCacheEntryFormat.parseHeader($0, fileSize: bytes.count) }
        }
        // Resealing alone keeps the header valid; a lone continuation byte, or a byte that never
        // occurs in UTF-8, does not.
        #expect(parse(sealed(header))?.metadata.contentType == "image/jpeg")
        for invalid: UInt8 in [0x80, 0xFF] {
            var damaged = header
            damaged[start + 5] = invalid
            #expect(parse(sealed(damaged)) == nil, "byte \(invalid)")
        }
    }

    @Test("Files written by format version 1 are misses")
    func versionOneIsRejected() {
        #expect(DiskCacheEntryFormat.version == 2)
        var header = DiskCacheEntryFormat.encodeHeader(
            key: "k", metadata: CachedResponseMetadata(storedAt: Date()), bodyLength: 0, bodyChecksum: 0
        )
        header[4] = 1
        header[5] = 0
        #expect(header.withUnsafeBytes { DiskCacheEntryFormat.declaredHeaderLength($0, fileSize: header.count) } == nil)
        #expect(header.withUnsafeBytes { DiskCacheEntryFormat.parseHeader($0, fileSize: header.count) } == nil)
    }

    @Test("The checksum changes with any single byte and with the length")
    func checksumSensitivity() {
        let base = (0..<203).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let reference = FastChecksum.checksum(base)
        for index in base.indices {
            var changed = base
            changed[index] &+= 1
            #expect(FastChecksum.checksum(changed) != reference, "byte \(index)")
        }
        var seen = Set<UInt64>()
        for length in 0..<100 {
            seen.insert(FastChecksum.checksum([UInt8](repeating: 0, count: length)))
        }
        #expect(seen.count == 100)
    }

    @Test("the checksum of known bytes never changes: entries written by any build stay readable")
    func checksumIsStable() {
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) } }
        #expect(FastChecksum.checksum(bytes(0), seed: 42) == 0x0c0b_16d9_044c_c5d6)
        #expect(FastChecksum.checksum(bytes(5), seed: 42) == 0x2808_3772_a84b_59e9)
        #expect(FastChecksum.checksum(bytes(100), seed: 42) == 0x6809_9d8b_0174_2e26)
        #expect(FastChecksum.checksum(bytes(200), seed: 42) == 0xd989_7de8_f44d_32e4)
        #expect(FastChecksum.checksum(bytes(1000), seed: 42) == 0xc24d_543d_f93a_dd80)
    }

    @Test("the checksum of known bytes around the 128-byte stripe never changes, whatever the seed")
    func checksumIsStableAcrossStripes() {
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) } }
        let expected: [(count: Int, seed: UInt64, checksum: UInt64)] = [
            (127, 0, 0x1b80_d79c_3e7a_de10), (128, 0, 0x704b_ad7c_52c7_eeb5), (129, 0, 0xba5f_98d0_359f_a6ad),
            (255, 0, 0xbea2_13f2_90ca_61ce), (256, 0, 0xcc0b_ea91_8a12_ac6d), (4_096, 0, 0xc90a_c542_0ab9_53f9),
            (65_537, 0, 0x3bb1_3180_6154_2a0a),
            (127, 0xDEAD_BEEF, 0x87f2_6fa1_8d98_e1f9), (128, 0xDEAD_BEEF, 0x1074_f54e_904a_0f35),
            (129, 0xDEAD_BEEF, 0xe955_842f_7fa5_a2eb), (255, 0xDEAD_BEEF, 0x2a27_e735_4ccf_1f39),
            (256, 0xDEAD_BEEF, 0x93c8_48a7_7a0a_bac4), (4_096, 0xDEAD_BEEF, 0x2a8a_e932_c379_7c16),
            (65_537, 0xDEAD_BEEF, 0xe0fe_cd01_144e_e65e),
        ]
        for (count, seed, checksum) in expected {
            #expect(FastChecksum.checksum(bytes(count), seed: seed) == checksum, "length \(count), seed \(seed)")
        }
    }

    /// On a processor without AVX2 (`cachedimage_checksum_uses_avx2() == 0`) both sides are the
    /// portable loop; the known-answer tests above pin the values either way.
    @Test("the checksum the processor runs (AVX2 where there is one) equals the portable loop for every length and alignment")
    func checksumPathsAgree() {
        let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ ($0 >> 9)) }
        bytes.withUnsafeBytes { all in
            for length in Array(0..<1_100) + [4_096, 65_537, 69_990] {
                for (shift, seed) in [(0, UInt64(0)), (3, 42), (5, 0xDEAD_BEEF)] {
                    let slice = UnsafeRawBufferPointer(rebasing: all[shift..<(shift + length)])
                    #expect(
                        FastChecksum.checksum(slice, seed: seed) == cachedimage_checksum_portable(slice.baseAddress, slice.count, seed),
                        "length \(length), offset \(shift), seed \(seed)"
                    )
                }
            }
        }
    }
}

private extension CachedResponseMetadata {
    /// This metadata with `fields` as its `Vary` fields (the public initialiser takes none).
    func withVary(_ fields: [VaryField]) -> CachedResponseMetadata {
        var metadata = self
        metadata.vary = fields
        return metadata
    }
}
