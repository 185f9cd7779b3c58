import Foundation
import Testing
@testable import CachedImageCore

// MARK: - Round trips and persistence

@Suite("DiskCache")
struct DiskCacheTests {
    @Test("A stored entry reads back with its bytes and metadata")
    func roundTrip() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache(directory: dir.cache)
        let data = diskTestBytes(200_000)
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
        writer.store(diskTestBytes(50_000), metadata: sampleMetadata, forKey: "a")
        writer.flush()
        let file = try #require(try entryFiles(in: dir.cache).first)
        // An access time older than the modification time: under `relatime` (and `strictatime`)
        // a plain read updates it, which dirties the inode and writes the journal.
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, file.path, &times, 0) == 0)

        do {
            // Released before the check, so the read's own touch (a second later) never lands.
            let reader = try DiskCache(directory: dir.cache)
            #expect(reader.entry(forKey: "a")?.data == diskTestBytes(50_000))
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
            first.store(diskTestBytes(1_000 + index * 37, seed: UInt8(index)), metadata: sampleMetadata, forKey: "key-\(index)")
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
            #expect(entry.data == diskTestBytes(1_000 + index * 37, seed: UInt8(index)))
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
        cache.store(diskTestBytes(5_000), metadata: sampleMetadata, forKey: "pending")
        let entry = cache.entry(forKey: "pending")
        #expect(entry?.data == diskTestBytes(5_000))
        #expect(entry?.metadata == sampleMetadata)
        #expect(cache.containsEntry(forKey: "pending"))
        #expect(!FileManager.default.fileExists(atPath: entryFile(for: "pending", in: dir.cache).path))
        cache.queue.resume()
        cache.flush()
        #expect(FileManager.default.fileExists(atPath: entryFile(for: "pending", in: dir.cache).path))
        #expect(try DiskCache(directory: dir.cache).entry(forKey: "pending")?.data == diskTestBytes(5_000))
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
        cache.store(diskTestBytes(1_000, seed: 1), metadata: sampleMetadata, forKey: key)
        cache.flush()
        cache.queue.suspend()
        // A 304 confirmed version 1 for a year: its metadata update is pending.
        var confirmed = sampleMetadata
        confirmed.freshnessLifetime = 365 * 86_400
        cache.updateMetadata(confirmed, forKey: key)
        // Between the read's lookup and its file read, version 2 is stored and written.
        let version2 = CachedResponseMetadata(etag: "\"v2\"", storedAt: Date(timeIntervalSince1970: 2), freshnessLifetime: 0)
        around.withLock { $0 = { read in
            cache.store(diskTestBytes(1_000, seed: 2), metadata: version2, forKey: key)
            cache.queue.resume()
            cache.queue.sync {}
            return read()
        } }
        let entry = try #require(cache.entry(forKey: key))
        #expect(entry.data == diskTestBytes(1_000, seed: 2))
        #expect(entry.metadata == version2, "version 2's bytes must not be served as fresh for a year")
    }

    @Test("A read that a metadata rewrite overtakes leaves the index counting the rewritten file's size")
    func readOvertakenByRewriteKeepsTheNewSize() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (cache, around) = try Self.cacheWithReadHook(dir)
        let key = "https://example.com/b.png"
        cache.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: key)
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
        let cache = try cacheOfThree(in: dir.cache, clock: clock)
        #expect(cache.entry(forKey: "a") != nil) // "a" is now the most recently used
        clock.advance()
        cache.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: "d")
        #expect(cache.totalSize <= threeEntryLimit)
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
            first.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: key)
            clock.advance()
        }
        first.flush()
        // Relaunch, read "a" (the oldest write), relaunch again: "b" must be the eviction victim.
        let second = try DiskCache(directory: dir.cache, sizeLimit: 3_500, clock: clock)
        #expect(second.entry(forKey: "a") != nil)
        second.flush()
        clock.advance()

        let third = try DiskCache(directory: dir.cache, sizeLimit: 3_500, clock: clock)
        third.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: "d")
        third.flush() // the store does not wait for the index load: the eviction lands with it
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
            cache.store(diskTestBytes(Int.random(in: 0..<9_000, using: &generator)), metadata: sampleMetadata, forKey: "k\(index % 60)")
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
        cache.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: "small")
        cache.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: "replaced")
        cache.flush()
        cache.store(diskTestBytes(10_001), metadata: bareMetadata, forKey: "huge")
        cache.store(diskTestBytes(20_000), metadata: bareMetadata, forKey: "replaced")
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
            first.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: key)
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
}
