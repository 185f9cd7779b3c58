import Foundation
import Testing
@testable import CachedImageCore

extension DiskCacheTests {
    // MARK: - Corruption

    enum Damage: String, CaseIterable, Sendable {
        case flipBodyByte, flipLastByte, flipMagic, flipKeyByte, flipMetadataByte, flipHeaderChecksum
        case truncate, appendByte, garbage, zeroLength, headerOnly
    }

    @Test("A damaged file is a miss, is deleted, and leaves the accounting right", arguments: Damage.allCases)
    func corruptFile(_ damage: Damage) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache(directory: dir.cache)
        let key = "https://example.com/damaged.jpg"
        cache.store(diskTestBytes(10_000), metadata: sampleMetadata, forKey: key)
        cache.store(diskTestBytes(3_000), metadata: sampleMetadata, forKey: "intact")
        cache.flush()
        let intactSize = cache.totalSize - (try fileSize(entryFile(for: key, in: dir.cache)))

        let url = entryFile(for: key, in: dir.cache)
        var file = try Data(contentsOf: url)
        let headerLength = DiskCacheEntryFormat.headerLength(keyByteCount: key.utf8.count, metadata: sampleMetadata)
        switch damage {
        case .flipBodyByte: file[headerLength + 5_000] ^= 0x01
        case .flipLastByte: file[file.count - 1] ^= 0x80
        case .flipMagic: file[0] ^= 0xFF
        case .flipKeyByte: file[DiskCacheEntryFormat.fixedLength + 3] ^= 0x01
        case .flipMetadataByte: file[headerLength - 12] ^= 0x01
        case .flipHeaderChecksum: file[headerLength - 1] ^= 0x01
        case .truncate: file = file.prefix(file.count - 100)
        case .appendByte: file.append(0)
        case .garbage: file = diskTestBytes(file.count, seed: 99)
        case .zeroLength: file = Data()
        case .headerOnly: file = file.prefix(headerLength)
        }
        try file.write(to: url)

        #expect(cache.entry(forKey: key) == nil)
        #expect(!cache.containsEntry(forKey: key))
        #expect(cache.entryCount == 1)
        #expect(cache.totalSize == intactSize)
        cache.flush()
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(cache.entry(forKey: "intact")?.data == diskTestBytes(3_000))

        // The same damage found at open: the index may count it, the read misses and deletes it.
        cache.store(diskTestBytes(10_000), metadata: sampleMetadata, forKey: key)
        cache.flush()
        try file.write(to: url)
        let reopened = try DiskCache(directory: dir.cache)
        #expect(reopened.entry(forKey: key) == nil)
        reopened.flush()
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(reopened.entryCount == 1)
        #expect(reopened.totalSize == intactSize)
    }

    @Test("A hash collision is a miss, never the other key's bytes")
    func forcedCollision() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let collide: @Sendable (String) -> DiskCacheEntryName = { _ in DiskCacheEntryName(high: 0, low: 0) }
        let cache = try DiskCache(
            directory: dir.cache, sizeLimit: DiskCache.defaultSizeLimit, clock: SystemClock(),
            errorHandler: nil, nameForKey: collide
        )
        cache.store(diskTestBytes(1_000, seed: 1), metadata: sampleMetadata, forKey: "first")
        #expect(cache.entry(forKey: "second") == nil)
        #expect(!cache.containsEntry(forKey: "second"))
        cache.flush()
        #expect(cache.entry(forKey: "second") == nil)

        // After a relaunch the index does not know the key yet: the file must still be checked.
        let reopened = try DiskCache(
            directory: dir.cache, sizeLimit: DiskCache.defaultSizeLimit, clock: SystemClock(),
            errorHandler: nil, nameForKey: collide
        )
        #expect(reopened.entry(forKey: "second") == nil)
        reopened.updateMetadata(bareMetadata, forKey: "second")
        reopened.flush()
        let first = try #require(reopened.entry(forKey: "first"), "a colliding miss must not delete the other entry")
        #expect(first.data == diskTestBytes(1_000, seed: 1))
        #expect(first.metadata == sampleMetadata)

        // The last writer owns the slot.
        reopened.store(diskTestBytes(2_000, seed: 2), metadata: bareMetadata, forKey: "second")
        #expect(reopened.entry(forKey: "first") == nil)
        #expect(reopened.entry(forKey: "second")?.data == diskTestBytes(2_000, seed: 2))
        reopened.flush()
        #expect(reopened.entry(forKey: "first") == nil)
        #expect(reopened.entry(forKey: "second")?.data == diskTestBytes(2_000, seed: 2))
    }

    // MARK: - Crash safety and hostile input

    @Test("Leftover temporary files are deleted at open and never indexed")
    func leftoverTemporaryFiles() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let first = try DiskCache(directory: dir.cache)
        first.store(diskTestBytes(1_000), metadata: sampleMetadata, forKey: "kept")
        first.flush()
        let tmp = dir.cache.appendingPathComponent("tmp", isDirectory: true)
        // A complete, valid entry that was never renamed into place, and a half-written one.
        let name = KeyHasher.fileName(for: "uncommitted")
        let valid = try Data(contentsOf: entryFile(for: "kept", in: dir.cache))
        try valid.write(to: tmp.appendingPathComponent(name))
        try valid.prefix(100).write(to: tmp.appendingPathComponent("\(name).7.tmp"))

        let second = try DiskCache(directory: dir.cache)
        #expect(second.entryCount == 1) // waits until the cache has opened
        second.flush() // the load queued their deletion, under the lock
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path).isEmpty)
        #expect(second.totalSize == first.totalSize)
        #expect(second.entry(forKey: "uncommitted") == nil)
        #expect(second.entry(forKey: "kept") != nil)
    }

    @Test("Keys with path syntax, NUL or 10,000 characters only produce hex names inside the directory")
    func hostileKeys() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let keys = [
            "../../escape", "../", "/etc/passwd", "a\u{0}b", "\u{0}", "",
            String(repeating: "x", count: 10_000), "🙂/\\:*?\"<>|", "tmp",
        ]
        let cache = try DiskCache(directory: dir.cache)
        for (index, key) in keys.enumerated() {
            cache.store(diskTestBytes(100 + index), metadata: sampleMetadata, forKey: key)
        }
        cache.flush()

        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.root.path) == ["Images"])
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.cache.path).sorted()
        #expect(names.count == keys.count + 2)
        #expect(names.allSatisfy { $0 == "tmp" || $0 == "index" || KeyHasher.isFileName($0) })
        let reopened = try DiskCache(directory: dir.cache)
        for (index, key) in keys.enumerated() {
            #expect(reopened.entry(forKey: key)?.data == diskTestBytes(100 + index), "key #\(index)")
        }
        #expect(reopened.entry(forKey: "a") == nil, "a NUL must not truncate the key")
        #expect(reopened.entry(forKey: String(repeating: "x", count: 9_999)) == nil)
    }
}
