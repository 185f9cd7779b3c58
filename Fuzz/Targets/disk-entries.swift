// Fuzz target "disk-entries": a disk cache entry file as any process that can write the cache
// directory may leave it (header, key, metadata, Vary fields, stored response, checksums), read
// the way the cache reads it, then the freshness rules run on the metadata it holds.
//
// Checksums would stop almost every mutation at the first check, so each input is read twice:
// as it is, and resealed (body length, body and header checksums made consistent), which lets
// the fuzzer reach every field behind them.
@testable import CachedImageCore
import Foundation
import ImageFixtures

enum FuzzTarget {
    static let key = "https://fuzz.invalid/image.png"
    static let path: String = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        return base + "/cachedimage-fuzz-entry-\(getpid())"
    }()

    static func run(_ data: Data) {
        let bytes = [UInt8](data)
        read(bytes)
        if let resealed = resealed(bytes) { read(resealed) }
    }

    static func read(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            _ = DiskCacheEntryFormat.declaredHeaderLength(buffer, fileSize: buffer.count)
            guard let header = DiskCacheEntryFormat.parseHeader(buffer, fileSize: buffer.count) else { return }
            _ = DiskCacheEntryFormat.storedKey(of: header, in: buffer)
            _ = DiskCacheEntryFormat.storedKey(of: header, in: buffer, equals: key)
            exercise(header.metadata)
        }
        // The same bytes through the file reads the cache makes.
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return }
        if case .hit(_, let metadata, _) = DiskCacheFileIO.readEntry(atPath: path, key: key, maximumSize: 1 << 24) {
            exercise(metadata)
        }
        _ = DiskCacheFileIO.readHeader(atPath: path)
    }

    /// The bytes with the body length, the body checksum and the header checksum set to what
    /// they must be, when the declared header length fits the file.
    static func resealed(_ original: [UInt8]) -> [UInt8]? {
        var bytes = original
        let length: Int? = bytes.withUnsafeBytes { DiskCacheEntryFormat.declaredHeaderLength($0, fileSize: $0.count) }
        guard let length, length >= 28 + 8 else { return nil }
        func put(_ value: UInt64, at offset: Int) {
            for index in 0..<8 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (index * 8)) }
        }
        put(UInt64(bytes.count - length), at: 12)
        put(bytes.withUnsafeBytes { DiskCacheEntryFormat.bodyChecksum(UnsafeRawBufferPointer(rebasing: $0[length...])) }, at: 20)
        put(bytes.withUnsafeBytes {
            FastChecksum.checksum(UnsafeRawBufferPointer(rebasing: $0[..<(length - 8)]), seed: DiskCacheEntryFormat.headerSeed)
        }, at: length - 8)
        return bytes
    }

    static func exercise(_ metadata: CachedResponseMetadata) {
        _ = metadata.conditionalHeaders()
        for offset: TimeInterval in [0, 60, 1e12, -1e12, .nan] {
            let now = metadata.storedAt.addingTimeInterval(offset)
            _ = metadata.currentAge(at: now)
            _ = metadata.isFresh(at: now, heuristic: .default)
            _ = metadata.staleness(at: now, heuristic: .default)
            _ = MemoryCacheLifetime.forResponse(metadata, honorsHTTPFreshness: true, heuristic: .default, at: now)
        }
    }

    static func seeds() -> [String: Data] {
        let body = ImageFixtures.png(width: 6, height: 4, seed: 1)
        let stored = Date(timeIntervalSinceReferenceDate: 800_000_000)
        var full = CachedResponseMetadata(
            contentType: "image/png", etag: "\"v1\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT", storedAt: stored,
            initialAge: 12, freshnessLifetime: 3_600, mustRevalidate: true, isImmutable: true, noCache: true,
            staleIfError: 60, staleWhileRevalidate: 30, lastModifiedAge: 86_400,
            response: CachedHTTPResponse(statusCode: 200, headerFields: ["Cache-Control": "max-age=3600", "Content-Type": "image/png"])
        )
        full.vary = [VaryField(name: "accept", value: "image/webp"), VaryField(name: "user-agent", value: nil)]
        let metadatas: [String: CachedResponseMetadata] = [
            "plain": CachedResponseMetadata(storedAt: stored),
            "full": full,
        ]
        var seeds: [String: Data] = [:]
        for (name, metadata) in metadatas {
            let header = DiskCacheEntryFormat.encodeHeader(
                key: key, metadata: metadata, bodyLength: body.count, bodyChecksum: DiskCacheEntryFormat.bodyChecksum(body)
            )
            seeds[name] = Data(header) + body
        }
        return seeds
    }
}
