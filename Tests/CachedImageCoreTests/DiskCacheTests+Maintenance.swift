import Foundation
import Testing
@testable import CachedImageCore

extension DiskCacheTests {
    // MARK: - Removal and updates

    @Test("removeEntry and removeAll delete files, including pending writes")
    func removal() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache(directory: dir.cache)
        for key in ["a", "b", "c"] {
            cache.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: key)
        }
        cache.flush()
        cache.removeEntry(forKey: "a")
        cache.removeEntry(forKey: "never-stored")
        #expect(cache.entry(forKey: "a") == nil)
        #expect(cache.entryCount == 2)
        cache.flush()
        #expect(try entryFiles(in: dir.cache).count == 2)

        cache.queue.suspend()
        cache.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: "pending")
        cache.removeEntry(forKey: "pending")
        cache.queue.resume()
        cache.flush()
        #expect(!FileManager.default.fileExists(atPath: entryFile(for: "pending", in: dir.cache).path))

        cache.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: "d")
        cache.removeAll()
        #expect(cache.entryCount == 0)
        #expect(cache.totalSize == 0)
        #expect(cache.entry(forKey: "b") == nil)
        #expect(cache.entry(forKey: "d") == nil)
        cache.flush()
        #expect(try entryFiles(in: dir.cache).isEmpty)
        #expect(try DiskCache(directory: dir.cache).entryCount == 0)

        cache.store(diskTestBytes(10), metadata: bareMetadata, forKey: "after")
        cache.flush()
        #expect(try DiskCache(directory: dir.cache).entry(forKey: "after") != nil)
    }

    @Test("updateMetadata replaces the metadata, keeps the bytes and persists")
    func updateMetadata() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        let cache = try DiskCache(directory: dir.cache, clock: clock)
        let data = diskTestBytes(50_000)
        cache.store(data, metadata: bareMetadata, forKey: "on-disk")
        cache.flush()
        var revalidated = sampleMetadata
        revalidated.etag = "\"a-much-longer-etag-than-before\""
        cache.updateMetadata(revalidated, forKey: "on-disk")
        #expect(cache.entry(forKey: "on-disk")?.metadata == revalidated)
        #expect(cache.entry(forKey: "on-disk")?.data == data)

        cache.queue.suspend()
        cache.store(diskTestBytes(10), metadata: bareMetadata, forKey: "pending")
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
        #expect(reopened.entry(forKey: "pending")?.data == diskTestBytes(10))
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
        cache.store(diskTestBytes(5_000), metadata: bareMetadata, forKey: "same")
        cache.flush()
        let read = try #require(cache.entry(forKey: "same"))
        #expect(cache.updateMetadata(refreshed, ifStillStored: read))
        #expect(cache.entry(forKey: "same") == DiskCache.Entry(key: "same", data: diskTestBytes(5_000), metadata: refreshed))
        cache.queue.suspend()
        cache.store(diskTestBytes(10), metadata: bareMetadata, forKey: "pending")
        let pending = try #require(cache.entry(forKey: "pending"))
        #expect(cache.updateMetadata(refreshed, ifStillStored: pending))
        #expect(cache.entry(forKey: "pending")?.metadata == refreshed)
        cache.queue.resume()

        // New bytes stored after the read: the old read's update is refused.
        cache.store(diskTestBytes(5_000), metadata: bareMetadata, forKey: "replaced")
        cache.flush()
        let old = try #require(cache.entry(forKey: "replaced"))
        cache.store(diskTestBytes(5_000, seed: 2), metadata: sampleMetadata, forKey: "replaced")
        #expect(!cache.updateMetadata(refreshed, ifStillStored: old))
        cache.flush()
        #expect(cache.entry(forKey: "replaced") == DiskCache.Entry(key: "replaced", data: diskTestBytes(5_000, seed: 2), metadata: sampleMetadata))

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
        cache.store(diskTestBytes(100), metadata: bareMetadata, forKey: "before")
        cache.flush()
        // Replace the directory by a regular file: nothing can be written (even as root).
        try FileManager.default.removeItem(at: dir.cache)
        try Data("not a directory".utf8).write(to: dir.cache)

        cache.store(diskTestBytes(1_000), metadata: sampleMetadata, forKey: "doomed")
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
        cache.store(diskTestBytes(100), metadata: bareMetadata, forKey: "old")
        cache.flush()
        try FileManager.default.removeItem(at: dir.cache)

        #expect(cache.entry(forKey: "old") == nil)
        cache.store(diskTestBytes(200), metadata: sampleMetadata, forKey: "new")
        cache.flush()
        #expect(log.all.isEmpty)
        #expect(cache.entryCount == 1)
        // The change count's file, kept open, is found deleted and written again (16 bytes).
        let changeCount = dir.cache.appendingPathComponent("index/changes")
        #expect((try? Data(contentsOf: changeCount))?.count == 16)
        let reopened = try DiskCache(directory: dir.cache)
        #expect(reopened.entry(forKey: "new")?.data == diskTestBytes(200))
    }

    // MARK: - Opening

    @Test("Opening indexes from the listing only; bodies are verified on read")
    func openDoesNotReadBodies() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let first = try DiskCache(directory: dir.cache)
        for index in 0..<5 {
            first.store(diskTestBytes(4_000), metadata: sampleMetadata, forKey: "k\(index)")
        }
        first.flush()
        let expectedSize = first.totalSize
        // Garble every body (headers intact), and add pure-garbage files under valid names.
        let headerLength = DiskCacheEntryFormat.headerLength(keyByteCount: 2, metadata: sampleMetadata)
        for url in try entryFiles(in: dir.cache) {
            var file = try Data(contentsOf: url)
            file.replaceSubrange(headerLength..<file.count, with: diskTestBytes(file.count - headerLength, seed: 7))
            try file.write(to: url)
        }
        let garbage = diskTestBytes(5_000, seed: 3)
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
        cache.store(diskTestBytes(10), metadata: sampleMetadata, forKey: "a")
        clock.advance()
        cache.store(diskTestBytes(20), metadata: bareMetadata, forKey: "b")
        cache.flush()
        clock.advance()
        _ = cache.entry(forKey: "a")
        let readDate = clock.now
        clock.advance()
        cache.queue.suspend()
        cache.store(diskTestBytes(30), metadata: bareMetadata, forKey: "pending")
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
                case 0, 1: cache.store(diskTestBytes(1_000 + step, seed: UInt8(step % 256)), metadata: bareMetadata, forKey: key)
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
