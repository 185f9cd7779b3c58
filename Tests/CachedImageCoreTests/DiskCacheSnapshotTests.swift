import Foundation
import Testing
@_spi(Benchmarks) @testable import CachedImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The index snapshot: a cache opens from it only while it matches the directory, and from a
/// listing otherwise, without ever losing track of a file or going over its size limit.
@Suite("DiskCache index snapshot")
struct DiskCacheSnapshotTests {
    private static func snapshotURL(_ dir: TemporaryDirectory) -> URL {
        dir.cache.appendingPathComponent("index/snapshot")
    }

    /// A flushed cache of `count` entries `key-0`… stored in order, 1,000 + i bytes each.
    private static func filledCache(_ dir: TemporaryDirectory, count: Int, clock: DiskTestClock) throws -> DiskCache {
        let cache = try DiskCache(directory: dir.cache, clock: clock)
        for index in 0..<count {
            clock.advance()
            cache.store(diskTestBytes(1_000 + index, seed: UInt8(index)), metadata: sampleMetadata, forKey: "key-\(index)")
        }
        cache.flush()
        return cache
    }

    /// The directory's modification time, to the nanosecond.
    private static func modificationTime(of url: URL) throws -> timespec {
        var info = stat()
        try #require(stat(url.path, &info) == 0)
        #if canImport(Darwin)
        return info.st_mtimespec
        #else
        return info.st_mtim
        #endif
    }

    private static func setModificationTime(_ time: timespec, of url: URL) throws {
        var times = [time, time]
        try #require(utimensat(AT_FDCWD, url.path, &times, 0) == 0)
    }

    @Test("A flushed cache reopens from its snapshot with the same entries, sizes and use order")
    func reopensFromSnapshot() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        var cache: DiskCache? = try Self.filledCache(dir, count: 5, clock: clock)
        clock.advance()
        _ = cache?.entry(forKey: "key-1") // now the most recently used
        cache?.flush()
        let expectedOrder = try #require(cache?.allEntries().map(\.key))
        let expectedSize = try #require(cache?.totalSize)
        cache = nil

        let reopened = try DiskCache(directory: dir.cache, clock: clock)
        #expect(reopened.indexSource == .snapshot)
        #expect(reopened.allEntries().map(\.key) == expectedOrder)
        #expect(expectedOrder.first == "key-1")
        #expect(reopened.totalSize == expectedSize)
        #expect(reopened.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: dir.cache))
        for index in 0..<5 {
            #expect(reopened.entry(forKey: "key-\(index)")?.data == diskTestBytes(1_000 + index, seed: UInt8(index)))
        }
    }

    @Test("Never flushed, a cache still persists a read's use: the entry file's date, then a new snapshot that the next open uses")
    func persistsUsesWithoutFlush() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        var cache: DiskCache? = try Self.filledCache(dir, count: 3, clock: clock)
        let snapshotBefore = try Data(contentsOf: Self.snapshotURL(dir))
        clock.advance()
        let readDate = clock.now
        _ = cache?.entry(forKey: "key-0") // the least recently used becomes the most recently used
        let entryPath = try #require(cache.map { $0.path(for: $0.nameForKey("key-0")) })

        // The cache's own timers write both (about 1 and 5 seconds after the read): wait for
        // them, without a deadline tight enough to be flaky.
        var isFileDated = false
        var isSnapshotRewritten = false
        let deadline = ContinuousClock.now + .seconds(60)
        while !(isFileDated && isSnapshotRewritten), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            let fileDate = try? FileManager.default.attributesOfItem(atPath: entryPath)[.modificationDate] as? Date
            isFileDated = fileDate.map { abs($0.timeIntervalSince(readDate)) < 1 } ?? false
            isSnapshotRewritten = (try? Data(contentsOf: Self.snapshotURL(dir))).map { $0 != snapshotBefore } ?? false
        }
        #expect(isFileDated, "the read's date reaches the entry file")
        #expect(isSnapshotRewritten, "a new snapshot is written")
        cache = nil

        let reopened = try DiskCache(directory: dir.cache, clock: clock)
        #expect(reopened.indexSource == .snapshot)
        #expect(reopened.allEntries().map(\.key) == ["key-0", "key-2", "key-1"])
    }

    @Test("Reopened from its snapshot with a smaller limit, the least recently used entries go first")
    func snapshotEvictsInUseOrder() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        var cache: DiskCache? = try Self.filledCache(dir, count: 4, clock: clock)
        clock.advance()
        _ = cache?.entry(forKey: "key-0")
        cache?.flush()
        let sizes = try #require(cache?.allEntries()).reduce(into: [String: Int]()) { $0[$1.key] = $1.byteCount }
        cache = nil

        // Room for about two entries: key-1 and key-2 (least recently used) must go, key-0 stays.
        let limit = ReliabilityChecks.sizeOfEntryFiles(in: dir.cache) / 2 + 10
        let reopened = try DiskCache(directory: dir.cache, sizeLimit: limit, clock: clock)
        #expect(reopened.indexSource == .snapshot)
        reopened.flush()
        #expect(reopened.totalSize <= limit)
        #expect(reopened.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: dir.cache))
        #expect(reopened.entry(forKey: "key-0") != nil)
        #expect(reopened.entry(forKey: "key-3") != nil)
        #expect(reopened.entry(forKey: "key-1") == nil)
        #expect(reopened.entry(forKey: "key-2") == nil)
        #expect(sizes.count == 4)
    }

    @Test("Missing snapshot: the cache opens from a listing, then writes a new snapshot")
    func missingSnapshot() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        _ = try Self.filledCache(dir, count: 3, clock: clock)
        try FileManager.default.removeItem(at: Self.snapshotURL(dir))

        var reopened: DiskCache? = try DiskCache(directory: dir.cache, clock: clock)
        #expect(reopened?.indexSource == .listing)
        #expect(reopened?.entryCount == 3)
        #expect(reopened?.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: dir.cache))
        reopened?.flush()
        reopened = nil
        #expect(try DiskCache(directory: dir.cache, clock: clock).indexSource == .snapshot)
    }

    @Test("Stale snapshot: an older snapshot put back after the directory changed is not trusted")
    func staleSnapshot() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        var cache: DiskCache? = try Self.filledCache(dir, count: 3, clock: clock)
        let older = try Data(contentsOf: Self.snapshotURL(dir))
        cache?.store(diskTestBytes(5_000, seed: 9), metadata: sampleMetadata, forKey: "added-later")
        cache?.removeEntry(forKey: "key-0")
        cache?.flush()
        cache = nil
        try older.write(to: Self.snapshotURL(dir))

        let reopened = try DiskCache(directory: dir.cache, clock: clock)
        #expect(reopened.indexSource == .listing)
        #expect(reopened.entryCount == 3)
        #expect(reopened.entry(forKey: "added-later")?.data == diskTestBytes(5_000, seed: 9))
        #expect(reopened.entry(forKey: "key-0") == nil)
        #expect(reopened.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: dir.cache))
    }

    @Test("Files added behind the snapshot are found and counted against the size limit")
    func filesAddedBehindSnapshot() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        // A valid entry made by another cache, copied in behind this one's back.
        let other = try TemporaryDirectory()
        defer { other.cleanUp() }
        var donor: DiskCache? = try DiskCache(directory: other.cache, clock: clock)
        donor?.store(diskTestBytes(20_000, seed: 3), metadata: sampleMetadata, forKey: "copied-in")
        donor?.flush()
        donor = nil

        _ = try Self.filledCache(dir, count: 3, clock: clock)
        try FileManager.default.copyItem(at: entryFile(for: "copied-in", in: other.cache), to: entryFile(for: "copied-in", in: dir.cache))

        let total = ReliabilityChecks.sizeOfEntryFiles(in: dir.cache)
        let reopened = try DiskCache(directory: dir.cache, sizeLimit: total - 1, clock: clock)
        #expect(reopened.indexSource == .listing)
        reopened.flush()
        // The copied file is counted: the limit forces an eviction, and the accounting matches.
        #expect(reopened.entryCount == 3)
        #expect(reopened.totalSize <= total - 1)
        #expect(reopened.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: dir.cache))
    }

    @Test("Files removed behind the snapshot are not counted")
    func filesRemovedBehindSnapshot() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        _ = try Self.filledCache(dir, count: 3, clock: clock)
        try FileManager.default.removeItem(at: entryFile(for: "key-1", in: dir.cache))

        let reopened = try DiskCache(directory: dir.cache, clock: clock)
        #expect(reopened.indexSource == .listing)
        #expect(reopened.entryCount == 2)
        #expect(reopened.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: dir.cache))
        #expect(!reopened.containsEntry(forKey: "key-1"))
    }

    @Test("Snapshot newer than the files: a listed entry whose file is gone is a miss, then uncounted")
    func snapshotNewerThanFiles() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        _ = try Self.filledCache(dir, count: 3, clock: clock)
        // Delete a file and put the directory's modification time back: a change the snapshot
        // cannot see (as on a file system with coarse timestamps).
        let stamp = try Self.modificationTime(of: dir.cache)
        try FileManager.default.removeItem(at: entryFile(for: "key-2", in: dir.cache))
        try Self.setModificationTime(stamp, of: dir.cache)

        let reopened = try DiskCache(directory: dir.cache, clock: clock)
        #expect(reopened.indexSource == .snapshot)
        #expect(reopened.entry(forKey: "key-2") == nil)
        #expect(reopened.entry(forKey: "key-0")?.data == diskTestBytes(1_000, seed: 0))
        #expect(reopened.entryCount == 2)
        #expect(reopened.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: dir.cache))
    }

    @Test("A file replaced in place behind the snapshot is counted at its real size once read")
    func fileReplacedInPlace() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        _ = try Self.filledCache(dir, count: 3, clock: clock)
        // Writing into an existing file leaves the directory's stamp as it was.
        let stamp = try Self.modificationTime(of: dir.cache)
        let other = try Data(contentsOf: entryFile(for: "key-2", in: dir.cache))
        let handle = try FileHandle(forWritingTo: entryFile(for: "key-1", in: dir.cache))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: other)
        try handle.close()
        try Self.setModificationTime(stamp, of: dir.cache)

        let reopened = try DiskCache(directory: dir.cache, clock: clock)
        #expect(reopened.indexSource == .snapshot)
        #expect(reopened.entry(forKey: "key-1") == nil, "another key's file is a miss")
        #expect(reopened.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: dir.cache))
    }

    @Test("A corrupt or truncated snapshot is not trusted", arguments: ["flipped byte", "truncated", "garbage"])
    func corruptSnapshot(damage: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        _ = try Self.filledCache(dir, count: 3, clock: clock)
        var bytes = try Data(contentsOf: Self.snapshotURL(dir))
        switch damage {
        case "flipped byte": bytes[bytes.count / 2] ^= 0x40
        case "truncated": bytes = bytes.prefix(bytes.count - 20)
        default: bytes = Data(repeating: 0x5A, count: bytes.count)
        }
        try bytes.write(to: Self.snapshotURL(dir))

        let reopened = try DiskCache(directory: dir.cache, clock: clock)
        #expect(reopened.indexSource == .listing)
        #expect(reopened.entryCount == 3)
        #expect(reopened.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: dir.cache))
    }

    @Test("Once a change reaches the directory, no snapshot that misses it is left on disk")
    func changeRemovesSnapshotFirst() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        let cache = try Self.filledCache(dir, count: 3, clock: clock)
        #expect(FileManager.default.fileExists(atPath: Self.snapshotURL(dir).path))

        cache.store(diskTestBytes(2_000, seed: 7), metadata: sampleMetadata, forKey: "new")
        cache.removeEntry(forKey: "key-0")
        cache.queue.sync {} // both changes are on disk now; a kill here is a crash after them
        if let bytes = try? Data(contentsOf: Self.snapshotURL(dir)) {
            // Only a snapshot written after the changes may be there.
            let stamp = try #require(DiskCacheFileIO.directoryStamp(atPath: dir.cache.path))
            let records = try #require(DiskCacheIndexSnapshot.decode(
                [UInt8](bytes), expecting: stamp, changeCount: cache.directoryLock.readChangeCount(), firstGeneration: 1
            ))
            #expect(Set(records.map(\.name)) == Set(["key-1", "key-2", "new"].map(KeyHasher.name(for:))))
        }
        let reopened = try DiskCache(directory: dir.cache, clock: clock)
        #expect(reopened.entry(forKey: "new")?.data == diskTestBytes(2_000, seed: 7))
        #expect(reopened.entry(forKey: "key-0") == nil)
        #expect(reopened.entryCount == 3)
        #expect(reopened.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: dir.cache))
    }

    @Test("The snapshot round-trips its records and refuses another directory's stamp or change count")
    func encodeDecode() {
        let records = (0..<100).map { index in
            DiskCacheIndex.Record(
                name: KeyHasher.name(for: "k\(index)"), size: 1_000 + index,
                accessDate: Date(timeIntervalSince1970: 1_000 + Double(index) / 8), key: nil, generation: UInt64(index + 1)
            )
        }
        let stamp = DiskCacheFileIO.DirectoryStamp(device: 1, inode: 2, seconds: 3, nanoseconds: 4)
        let bytes = DiskCacheIndexSnapshot.encode(records, stamp: stamp, changeCount: 42)
        #expect(DiskCacheIndexSnapshot.decode(bytes, expecting: stamp, changeCount: 42, firstGeneration: 1) == records)
        var other = stamp
        other.nanoseconds += 1
        #expect(DiskCacheIndexSnapshot.decode(bytes, expecting: other, changeCount: 42, firstGeneration: 1) == nil)
        // Another process changed the directory since (its stamp may look the same).
        #expect(DiskCacheIndexSnapshot.decode(bytes, expecting: stamp, changeCount: 43, firstGeneration: 1) == nil)
    }
}
