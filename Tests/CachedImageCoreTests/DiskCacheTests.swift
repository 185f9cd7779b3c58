import Foundation
import Testing
@testable import CachedImageCore

// MARK: - Helpers

private func bytes(_ count: Int, seed: UInt8 = 1) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
}

// MARK: - Round trips and persistence

@Suite("DiskCache")
struct DiskCacheTests {
    @Test("A stored entry reads back with its bytes and metadata")
    func roundTrip() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache(directory: dir.cache)
        let data = bytes(200_000)
        cache.store(data, metadata: sampleMetadata, forKey: "https://example.com/a.png")
        cache.store(Data(), metadata: bareMetadata, forKey: "empty")
        cache.flush()

        let entry = try #require(cache.entry(forKey: "https://example.com/a.png"))
        #expect(entry.key == "https://example.com/a.png")
        #expect(entry.data == data)
        #expect(entry.metadata == sampleMetadata)
        let empty = try #require(cache.entry(forKey: "empty"))
        #expect(empty.data.isEmpty)
        #expect(empty.metadata == bareMetadata)
        #expect(cache.entry(forKey: "https://example.com/other.png") == nil)
        #expect(cache.containsEntry(forKey: "https://example.com/a.png"))
        #expect(!cache.containsEntry(forKey: "https://example.com/other.png"))
        #expect(cache.entryCount == 2)
    }

    #if os(Linux)
    @Test("A disk hit writes nothing: the file's access time stays as it was")
    func readLeavesAccessTime() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let writer = try DiskCache(directory: dir.cache)
        writer.store(bytes(50_000), metadata: sampleMetadata, forKey: "a")
        writer.flush()
        let file = try #require(try entryFiles(in: dir.cache).first)
        // An access time older than the modification time: under `relatime` (and `strictatime`)
        // a plain read updates it, which dirties the inode and writes the journal.
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, file.path, &times, 0) == 0)

        do {
            // Released before the check, so the read's own touch (a second later) never lands.
            let reader = try DiskCache(directory: dir.cache)
            #expect(reader.entry(forKey: "a")?.data == bytes(50_000))
        }
        var info = stat()
        #expect(stat(file.path, &info) == 0)
        #expect(info.st_atim.tv_sec == 1_000_000_000)
    }
    #endif

    @Test("A new instance on the same directory sees every entry with the same total size")
    func relaunch() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let first = try DiskCache(directory: dir.cache)
        for index in 0..<20 {
            first.store(bytes(1_000 + index * 37, seed: UInt8(index)), metadata: sampleMetadata, forKey: "key-\(index)")
        }
        first.flush()
        let onDisk = try entryFiles(in: dir.cache).map(fileSize).reduce(0, +)
        #expect(onDisk == first.totalSize)

        let second = try DiskCache(directory: dir.cache)
        #expect(second.entryCount == 20)
        #expect(second.totalSize == first.totalSize)
        for index in 0..<20 {
            #expect(second.containsEntry(forKey: "key-\(index)"))
            let entry = try #require(second.entry(forKey: "key-\(index)"))
            #expect(entry.data == bytes(1_000 + index * 37, seed: UInt8(index)))
            #expect(entry.metadata == sampleMetadata)
        }
    }

    @Test("A pending write is served from memory before it reaches the disk")
    func pendingWriteVisible() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache(directory: dir.cache)
        cache.flush() // the index loads on the queue: let it, then hold the queue
        cache.queue.suspend()
        cache.store(bytes(5_000), metadata: sampleMetadata, forKey: "pending")
        let entry = cache.entry(forKey: "pending")
        #expect(entry?.data == bytes(5_000))
        #expect(entry?.metadata == sampleMetadata)
        #expect(cache.containsEntry(forKey: "pending"))
        #expect(!FileManager.default.fileExists(atPath: entryFile(for: "pending", in: dir.cache).path))
        cache.queue.resume()
        cache.flush()
        #expect(FileManager.default.fileExists(atPath: entryFile(for: "pending", in: dir.cache).path))
        #expect(try DiskCache(directory: dir.cache).entry(forKey: "pending")?.data == bytes(5_000))
    }

    // MARK: - Reads racing writes

    /// A cache whose entry reads call `around` (once armed) with the real read, so that a test
    /// can change the cache before or after the file is read.
    private static func cacheWithReadHook(_ dir: TemporaryDirectory) throws -> (DiskCache, Locked<((() -> DiskCacheFileIO.ReadResult) -> DiskCacheFileIO.ReadResult)?>) {
        let around = Locked<((() -> DiskCacheFileIO.ReadResult) -> DiskCacheFileIO.ReadResult)?>(nil)
        let cache = try DiskCache(
            directory: dir.cache, sizeLimit: DiskCache.defaultSizeLimit, clock: SystemClock(), errorHandler: nil,
            nameForKey: { KeyHasher.name(for: $0) },
            readEntryFile: { path, key, maximumSize in
                let read = { DiskCacheFileIO.readEntry(atPath: path, key: key, maximumSize: maximumSize) }
                guard let hook = around.withLock({ hook in defer { hook = nil }; return hook }) else { return read() }
                return hook(read)
            }
        )
        return (cache, around)
    }

    @Test("A read that a new store overtakes returns that version's bytes with its own metadata, not the older pending update's")
    func readOvertakenByStoreKeepsBytesAndMetadataTogether() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (cache, around) = try Self.cacheWithReadHook(dir)
        let key = "https://example.com/a.png"
        cache.store(bytes(1_000, seed: 1), metadata: sampleMetadata, forKey: key)
        cache.flush()
        cache.queue.suspend()
        // A 304 confirmed version 1 for a year: its metadata update is pending.
        var confirmed = sampleMetadata
        confirmed.freshnessLifetime = 365 * 86_400
        cache.updateMetadata(confirmed, forKey: key)
        // Between the read's lookup and its file read, version 2 is stored and written.
        let version2 = CachedResponseMetadata(etag: "\"v2\"", storedAt: Date(timeIntervalSince1970: 2), freshnessLifetime: 0)
        around.withLock { $0 = { read in
            cache.store(bytes(1_000, seed: 2), metadata: version2, forKey: key)
            cache.queue.resume()
            cache.queue.sync {}
            return read()
        } }
        let entry = try #require(cache.entry(forKey: key))
        #expect(entry.data == bytes(1_000, seed: 2))
        #expect(entry.metadata == version2, "version 2's bytes must not be served as fresh for a year")
    }

    @Test("A read that a metadata rewrite overtakes leaves the index counting the rewritten file's size")
    func readOvertakenByRewriteKeepsTheNewSize() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (cache, around) = try Self.cacheWithReadHook(dir)
        let key = "https://example.com/b.png"
        cache.store(bytes(1_000), metadata: bareMetadata, forKey: key)
        cache.flush()
        cache.queue.suspend()
        // A longer header: the rewritten file is larger than the one the read opens.
        var longer = bareMetadata
        longer.etag = "\"" + String(repeating: "e", count: 500) + "\""
        cache.updateMetadata(longer, forKey: key)
        // The read gets the old file; the rewrite lands before the read's bookkeeping.
        around.withLock { $0 = { read in
            let result = read()
            cache.queue.resume()
            cache.queue.sync {}
            return result
        } }
        #expect(cache.entry(forKey: key)?.metadata == longer)
        cache.flush()
        #expect(cache.totalSize == (try fileSize(entryFile(for: key, in: dir.cache))))
    }

    // MARK: - Size limit and LRU

    @Test("The sweep evicts the least recently read entry first")
    func lruEviction() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        // Each entry is 1,000 bytes plus a header of about 60: three fit, four do not.
        let cache = try DiskCache(directory: dir.cache, sizeLimit: 3_500, clock: clock)
        for key in ["a", "b", "c"] {
            cache.store(bytes(1_000), metadata: bareMetadata, forKey: key)
            clock.advance()
        }
        cache.flush()
        #expect(cache.entry(forKey: "a") != nil) // "a" is now the most recently used
        clock.advance()
        cache.store(bytes(1_000), metadata: bareMetadata, forKey: "d")
        #expect(cache.totalSize <= 3_500)
        #expect(!cache.containsEntry(forKey: "b"))
        #expect(cache.containsEntry(forKey: "a"))
        #expect(cache.containsEntry(forKey: "c"))
        #expect(cache.containsEntry(forKey: "d"))
        cache.flush()
        #expect(!FileManager.default.fileExists(atPath: entryFile(for: "b", in: dir.cache).path))
        #expect(try entryFiles(in: dir.cache).count == 3)
    }

    @Test("The access order survives a relaunch")
    func lruEvictionAfterRelaunch() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        let first = try DiskCache(directory: dir.cache, sizeLimit: 3_500, clock: clock)
        for key in ["a", "b", "c"] {
            first.store(bytes(1_000), metadata: bareMetadata, forKey: key)
            clock.advance()
        }
        first.flush()
        // Relaunch, read "a" (the oldest write), relaunch again: "b" must be the eviction victim.
        let second = try DiskCache(directory: dir.cache, sizeLimit: 3_500, clock: clock)
        #expect(second.entry(forKey: "a") != nil)
        second.flush()
        clock.advance()

        let third = try DiskCache(directory: dir.cache, sizeLimit: 3_500, clock: clock)
        third.store(bytes(1_000), metadata: bareMetadata, forKey: "d")
        #expect(!third.containsEntry(forKey: "b"))
        #expect(third.containsEntry(forKey: "a"))
        #expect(third.containsEntry(forKey: "c"))
        #expect(third.containsEntry(forKey: "d"))
        let order = third.allEntries().map(\.key)
        #expect(order == ["d", "a", "c"])
    }

    @Test("The total size never exceeds the limit after a write, in memory or on disk")
    func sizeStaysWithinLimit() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        let limit = 50_000
        let cache = try DiskCache(directory: dir.cache, sizeLimit: limit, clock: clock)
        var generator = SystemRandomNumberGenerator()
        for index in 0..<200 {
            cache.store(bytes(Int.random(in: 0..<9_000, using: &generator)), metadata: sampleMetadata, forKey: "k\(index % 60)")
            #expect(cache.totalSize <= limit)
            if index % 3 == 0 { _ = cache.entry(forKey: "k\(Int.random(in: 0..<60, using: &generator))") }
            clock.advance(by: 1)
        }
        cache.flush()
        let onDisk = try entryFiles(in: dir.cache).map(fileSize).reduce(0, +)
        #expect(onDisk == cache.totalSize)
        #expect(onDisk <= limit)
        #expect(try entryFiles(in: dir.cache).count == cache.entryCount)
    }

    @Test("An entry larger than the limit is not stored and replaces nothing")
    func oversizedEntry() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache(directory: dir.cache, sizeLimit: 10_000)
        cache.store(bytes(1_000), metadata: bareMetadata, forKey: "small")
        cache.store(bytes(1_000), metadata: bareMetadata, forKey: "replaced")
        cache.flush()
        cache.store(bytes(10_001), metadata: bareMetadata, forKey: "huge")
        cache.store(bytes(20_000), metadata: bareMetadata, forKey: "replaced")
        #expect(cache.entry(forKey: "huge") == nil)
        #expect(cache.entry(forKey: "replaced") == nil, "a stale previous version must not be served")
        #expect(cache.entry(forKey: "small") != nil)
        cache.flush()
        #expect(try entryFiles(in: dir.cache).count == 1)
        #expect(cache.totalSize <= 10_000)
    }

    @Test("Opening with a smaller limit evicts down to it")
    func reopenWithSmallerLimit() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        let first = try DiskCache(directory: dir.cache, clock: clock)
        for key in ["a", "b", "c", "d"] {
            first.store(bytes(1_000), metadata: bareMetadata, forKey: key)
            clock.advance()
        }
        first.flush()
        let second = try DiskCache(directory: dir.cache, sizeLimit: 2_200, clock: clock)
        #expect(second.totalSize <= 2_200)
        #expect(second.containsEntry(forKey: "d"))
        #expect(second.containsEntry(forKey: "c"))
        #expect(!second.containsEntry(forKey: "a"))
        second.flush()
        #expect(try entryFiles(in: dir.cache).count == 2)
    }

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
        cache.store(bytes(10_000), metadata: sampleMetadata, forKey: key)
        cache.store(bytes(3_000), metadata: sampleMetadata, forKey: "intact")
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
        case .garbage: file = bytes(file.count, seed: 99)
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
        #expect(cache.entry(forKey: "intact")?.data == bytes(3_000))

        // The same damage found at open: the index may count it, the read misses and deletes it.
        cache.store(bytes(10_000), metadata: sampleMetadata, forKey: key)
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
        cache.store(bytes(1_000, seed: 1), metadata: sampleMetadata, forKey: "first")
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
        #expect(first.data == bytes(1_000, seed: 1))
        #expect(first.metadata == sampleMetadata)

        // The last writer owns the slot.
        reopened.store(bytes(2_000, seed: 2), metadata: bareMetadata, forKey: "second")
        #expect(reopened.entry(forKey: "first") == nil)
        #expect(reopened.entry(forKey: "second")?.data == bytes(2_000, seed: 2))
        reopened.flush()
        #expect(reopened.entry(forKey: "first") == nil)
        #expect(reopened.entry(forKey: "second")?.data == bytes(2_000, seed: 2))
    }

    // MARK: - Crash safety and hostile input

    @Test("Leftover temporary files are deleted at open and never indexed")
    func leftoverTemporaryFiles() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let first = try DiskCache(directory: dir.cache)
        first.store(bytes(1_000), metadata: sampleMetadata, forKey: "kept")
        first.flush()
        let tmp = dir.cache.appendingPathComponent("tmp", isDirectory: true)
        // A complete, valid entry that was never renamed into place, and a half-written one.
        let name = KeyHasher.fileName(for: "uncommitted")
        let valid = try Data(contentsOf: entryFile(for: "kept", in: dir.cache))
        try valid.write(to: tmp.appendingPathComponent(name))
        try valid.prefix(100).write(to: tmp.appendingPathComponent("\(name).7.tmp"))

        let second = try DiskCache(directory: dir.cache)
        #expect(second.entryCount == 1) // waits until the cache has opened
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
            cache.store(bytes(100 + index), metadata: sampleMetadata, forKey: key)
        }
        cache.flush()

        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.root.path) == ["Images"])
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.cache.path).sorted()
        #expect(names.count == keys.count + 2)
        #expect(names.allSatisfy { $0 == "tmp" || $0 == "index" || KeyHasher.isFileName($0) })
        let reopened = try DiskCache(directory: dir.cache)
        for (index, key) in keys.enumerated() {
            #expect(reopened.entry(forKey: key)?.data == bytes(100 + index), "key #\(index)")
        }
        #expect(reopened.entry(forKey: "a") == nil, "a NUL must not truncate the key")
        #expect(reopened.entry(forKey: String(repeating: "x", count: 9_999)) == nil)
    }

    // MARK: - Removal and updates

    @Test("removeEntry and removeAll delete files, including pending writes")
    func removal() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache(directory: dir.cache)
        for key in ["a", "b", "c"] {
            cache.store(bytes(1_000), metadata: bareMetadata, forKey: key)
        }
        cache.flush()
        cache.removeEntry(forKey: "a")
        cache.removeEntry(forKey: "never-stored")
        #expect(cache.entry(forKey: "a") == nil)
        #expect(cache.entryCount == 2)
        cache.flush()
        #expect(try entryFiles(in: dir.cache).count == 2)

        cache.queue.suspend()
        cache.store(bytes(1_000), metadata: bareMetadata, forKey: "pending")
        cache.removeEntry(forKey: "pending")
        cache.queue.resume()
        cache.flush()
        #expect(!FileManager.default.fileExists(atPath: entryFile(for: "pending", in: dir.cache).path))

        cache.store(bytes(1_000), metadata: bareMetadata, forKey: "d")
        cache.removeAll()
        #expect(cache.entryCount == 0)
        #expect(cache.totalSize == 0)
        #expect(cache.entry(forKey: "b") == nil)
        #expect(cache.entry(forKey: "d") == nil)
        cache.flush()
        #expect(try entryFiles(in: dir.cache).isEmpty)
        #expect(try DiskCache(directory: dir.cache).entryCount == 0)

        cache.store(bytes(10), metadata: bareMetadata, forKey: "after")
        cache.flush()
        #expect(try DiskCache(directory: dir.cache).entry(forKey: "after") != nil)
    }

    @Test("updateMetadata replaces the metadata, keeps the bytes and persists")
    func updateMetadata() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        let cache = try DiskCache(directory: dir.cache, clock: clock)
        let data = bytes(50_000)
        cache.store(data, metadata: bareMetadata, forKey: "on-disk")
        cache.flush()
        var revalidated = sampleMetadata
        revalidated.etag = "\"a-much-longer-etag-than-before\""
        cache.updateMetadata(revalidated, forKey: "on-disk")
        #expect(cache.entry(forKey: "on-disk")?.metadata == revalidated)
        #expect(cache.entry(forKey: "on-disk")?.data == data)

        cache.queue.suspend()
        cache.store(bytes(10), metadata: bareMetadata, forKey: "pending")
        cache.updateMetadata(sampleMetadata, forKey: "pending")
        #expect(cache.entry(forKey: "pending")?.metadata == sampleMetadata)
        cache.queue.resume()

        cache.updateMetadata(sampleMetadata, forKey: "missing")
        #expect(!cache.containsEntry(forKey: "missing"))
        cache.flush()

        let onDisk = try entryFiles(in: dir.cache).map(fileSize).reduce(0, +)
        #expect(onDisk == cache.totalSize)
        let reopened = try DiskCache(directory: dir.cache, clock: clock)
        #expect(reopened.entry(forKey: "on-disk") == DiskCache.Entry(key: "on-disk", data: data, metadata: revalidated))
        #expect(reopened.entry(forKey: "pending")?.metadata == sampleMetadata)
        #expect(reopened.entry(forKey: "pending")?.data == bytes(10))
        #expect(reopened.entryCount == 2)
    }

    @Test("updateMetadata(ifStillStored:) applies only to the entry that was read, on disk or pending")
    func updateMetadataIfStillStored() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache(directory: dir.cache, clock: DiskTestClock())
        var refreshed = sampleMetadata
        refreshed.etag = "\"refreshed\""

        // Unchanged since it was read: applied, from disk and while its write is pending.
        cache.store(bytes(5_000), metadata: bareMetadata, forKey: "same")
        cache.flush()
        let read = try #require(cache.entry(forKey: "same"))
        #expect(cache.updateMetadata(refreshed, ifStillStored: read))
        #expect(cache.entry(forKey: "same") == DiskCache.Entry(key: "same", data: bytes(5_000), metadata: refreshed))
        cache.queue.suspend()
        cache.store(bytes(10), metadata: bareMetadata, forKey: "pending")
        let pending = try #require(cache.entry(forKey: "pending"))
        #expect(cache.updateMetadata(refreshed, ifStillStored: pending))
        #expect(cache.entry(forKey: "pending")?.metadata == refreshed)
        cache.queue.resume()

        // New bytes stored after the read: the old read's update is refused.
        cache.store(bytes(5_000), metadata: bareMetadata, forKey: "replaced")
        cache.flush()
        let old = try #require(cache.entry(forKey: "replaced"))
        cache.store(bytes(5_000, seed: 2), metadata: sampleMetadata, forKey: "replaced")
        #expect(!cache.updateMetadata(refreshed, ifStillStored: old))
        cache.flush()
        #expect(cache.entry(forKey: "replaced") == DiskCache.Entry(key: "replaced", data: bytes(5_000, seed: 2), metadata: sampleMetadata))

        // Same bytes, but refreshed by someone else since the read: refused too.
        let stale = try #require(cache.entry(forKey: "same"))
        cache.updateMetadata(sampleMetadata, forKey: "same")
        #expect(!cache.updateMetadata(bareMetadata, ifStillStored: stale))
        #expect(cache.entry(forKey: "same")?.metadata == sampleMetadata)

        // Removed since the read: nothing is recreated.
        cache.removeEntry(forKey: "same")
        #expect(!cache.updateMetadata(refreshed, ifStillStored: stale))
        #expect(!cache.containsEntry(forKey: "same"))
        cache.flush()
        #expect(try entryFiles(in: dir.cache).map(fileSize).reduce(0, +) == cache.totalSize)
    }

    // MARK: - Failures

    @Test("A failing write is reported through the error handler and the entry is dropped")
    func writeFailureIsReported() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let log = ErrorLog()
        let cache = try DiskCache(directory: dir.cache, errorHandler: log.handler)
        cache.store(bytes(100), metadata: bareMetadata, forKey: "before")
        cache.flush()
        // Replace the directory by a regular file: nothing can be written (even as root).
        try FileManager.default.removeItem(at: dir.cache)
        try Data("not a directory".utf8).write(to: dir.cache)

        cache.store(bytes(1_000), metadata: sampleMetadata, forKey: "doomed")
        cache.flush()
        let errors = log.all
        #expect(errors.count == 1)
        #expect(errors.first?.operation == .write)
        #expect(errors.first?.key == "doomed")
        #expect(cache.entry(forKey: "doomed") == nil)
        #expect(!cache.containsEntry(forKey: "doomed"))
        #expect(cache.entry(forKey: "before") == nil)
        #expect(cache.entryCount == 0)
        #expect(cache.totalSize == 0)

        #expect(throws: DiskCache.Error.self) {
            try DiskCache(directory: dir.cache)
        }
    }

    @Test("A directory deleted under the cache is recreated on the next write")
    func directoryRecreated() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let log = ErrorLog()
        let cache = try DiskCache(directory: dir.cache, errorHandler: log.handler)
        cache.store(bytes(100), metadata: bareMetadata, forKey: "old")
        cache.flush()
        try FileManager.default.removeItem(at: dir.cache)

        #expect(cache.entry(forKey: "old") == nil)
        cache.store(bytes(200), metadata: sampleMetadata, forKey: "new")
        cache.flush()
        #expect(log.all.isEmpty)
        #expect(cache.entryCount == 1)
        // The change count's file, kept open, is found deleted and written again (16 bytes).
        let changeCount = dir.cache.appendingPathComponent("index/changes")
        #expect((try? Data(contentsOf: changeCount))?.count == 16)
        let reopened = try DiskCache(directory: dir.cache)
        #expect(reopened.entry(forKey: "new")?.data == bytes(200))
    }

    // MARK: - Opening

    @Test("Opening indexes from the listing only; bodies are verified on read")
    func openDoesNotReadBodies() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let first = try DiskCache(directory: dir.cache)
        for index in 0..<5 {
            first.store(bytes(4_000), metadata: sampleMetadata, forKey: "k\(index)")
        }
        first.flush()
        let expectedSize = first.totalSize
        // Garble every body (headers intact), and add pure-garbage files under valid names.
        let headerLength = DiskCacheEntryFormat.headerLength(keyByteCount: 2, metadata: sampleMetadata)
        for url in try entryFiles(in: dir.cache) {
            var file = try Data(contentsOf: url)
            file.replaceSubrange(headerLength..<file.count, with: bytes(file.count - headerLength, seed: 7))
            try file.write(to: url)
        }
        let garbage = bytes(5_000, seed: 3)
        try garbage.write(to: dir.cache.appendingPathComponent(KeyHasher.fileName(for: "garbage")))
        try Data("ignored".utf8).write(to: dir.cache.appendingPathComponent("README.txt"))

        let reopened = try DiskCache(directory: dir.cache)
        #expect(reopened.entryCount == 6)
        #expect(reopened.totalSize == expectedSize + garbage.count)
        #expect(reopened.containsEntry(forKey: "garbage"))
        for index in 0..<5 {
            #expect(reopened.entry(forKey: "k\(index)") == nil)
        }
        #expect(reopened.entry(forKey: "garbage") == nil)
        #expect(reopened.entryCount == 0)
        #expect(reopened.totalSize == 0)
        reopened.flush()
        #expect(try entryFiles(in: dir.cache).isEmpty)
        #expect(FileManager.default.fileExists(atPath: dir.cache.appendingPathComponent("README.txt").path))
    }

    @Test("allEntries lists keys, sizes, metadata and access dates, most recent first")
    func allEntries() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        let cache = try DiskCache(directory: dir.cache, clock: clock)
        cache.store(bytes(10), metadata: sampleMetadata, forKey: "a")
        clock.advance()
        cache.store(bytes(20), metadata: bareMetadata, forKey: "b")
        cache.flush()
        clock.advance()
        _ = cache.entry(forKey: "a")
        let readDate = clock.now
        clock.advance()
        cache.queue.suspend()
        cache.store(bytes(30), metadata: bareMetadata, forKey: "pending")
        let infos = cache.allEntries()
        cache.queue.resume()
        #expect(infos.map(\.key) == ["pending", "a", "b"])
        #expect(infos.map(\.byteCount) == [30, 10, 20])
        #expect(infos[1].metadata == sampleMetadata)
        #expect(infos[1].lastAccessDate == readDate)
        cache.flush()
        let reopened = try DiskCache(directory: dir.cache, clock: clock)
        #expect(reopened.allEntries().map(\.key) == ["pending", "a", "b"])
    }

    @Test("Concurrent reads, writes and removals stay consistent")
    func concurrentUse() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache(directory: dir.cache, sizeLimit: 200_000)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for step in 0..<200 {
                let key = "k\((worker * 7 + step) % 40)"
                switch step % 5 {
                case 0, 1: cache.store(bytes(1_000 + step, seed: UInt8(step % 256)), metadata: bareMetadata, forKey: key)
                case 2: cache.removeEntry(forKey: key)
                case 3: cache.updateMetadata(sampleMetadata, forKey: key)
                default:
                    if let entry = cache.entry(forKey: key) { #expect(entry.key == key) }
                }
            }
        }
        cache.flush()
        #expect(cache.totalSize <= 200_000)
        let onDisk = try entryFiles(in: dir.cache).map(fileSize).reduce(0, +)
        #expect(onDisk == cache.totalSize)
        let reopened = try DiskCache(directory: dir.cache)
        #expect(reopened.entryCount == cache.entryCount)
        for info in reopened.allEntries() {
            #expect(reopened.entry(forKey: info.key)?.data.count == info.byteCount)
        }
    }
}
