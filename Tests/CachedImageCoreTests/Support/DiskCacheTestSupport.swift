import Foundation
import Testing
@testable import CachedImageCore

// Shared by the DiskCache test files.

/// A clock the test moves by hand.
final class DiskTestClock: CacheClock, @unchecked Sendable {
    private let date = Locked(Date(timeIntervalSince1970: 1_000_000))

    var now: Date { date.withLock { $0 } }

    func advance(by seconds: TimeInterval = 10) {
        date.withLock { $0 += seconds }
    }
}

/// Collects errors reported by the cache.
final class ErrorLog: Sendable {
    private let errors = Locked<[DiskCache.Error]>([])

    var all: [DiskCache.Error] { errors.withLock { $0 } }

    var handler: @Sendable (DiskCache.Error) -> Void {
        { error in self.errors.withLock { $0.append(error) } }
    }
}

/// A fresh directory under the system temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
    let root: URL
    /// Where the cache lives (does not exist yet).
    let cache: URL

    init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("DiskCacheTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        cache = root.appendingPathComponent("Images", isDirectory: true)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: root)
    }
}

let sampleMetadata = CachedResponseMetadata(
    contentType: "image/png",
    etag: "\"abc-123\"",
    lastModified: "Wed, 21 Oct 2015 07:28:00 GMT",
    storedAt: Date(timeIntervalSince1970: 1_700_000_000.125),
    initialAge: 12.5,
    freshnessLifetime: 3600,
    mustRevalidate: true,
    isImmutable: false
)

let bareMetadata = CachedResponseMetadata(storedAt: Date(timeIntervalSince1970: 1_000))


/// The entry files (32-hex names) directly in `directory`.
func entryFiles(in directory: URL) throws -> [URL] {
    try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        .filter { KeyHasher.isFileName($0.lastPathComponent) }
}

func fileSize(_ url: URL) throws -> Int {
    try #require(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
}

func entryFile(for key: String, in directory: URL) -> URL {
    directory.appendingPathComponent(KeyHasher.fileName(for: key))
}

/// Deterministic bytes for an entry: `count` of them, different for each `seed`.
func diskTestBytes(_ count: Int, seed: UInt8 = 1) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
}

/// A cache that holds three entries of 1,000 bytes and not four (each has a header of about
/// 60), with "a", "b" and "c" stored in that order, a tick of `clock` apart, and written: the
/// next store evicts the least recently used.
func cacheOfThree(in directory: URL, clock: DiskTestClock) throws -> DiskCache {
    let cache = try DiskCache(directory: directory, sizeLimit: threeEntryLimit, clock: clock)
    for key in ["a", "b", "c"] {
        cache.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: key)
        clock.advance()
    }
    cache.flush()
    return cache
}

/// The size limit of ``cacheOfThree(in:clock:)``.
let threeEntryLimit = 3_500
