import Foundation
import ImageFixtures
import Testing
@_spi(Benchmarks) @testable import CachedImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What another process that can write the cache directory may leave there: files of absurd
/// declared sizes, FIFOs, symbolic links, a doctored snapshot. Each used to trap the process,
/// hang it, or make it write through a link; now each is a miss, a listing, or an error the
/// cache reports.
@Suite("Reliability: hostile files in the cache directory never trap, hang or redirect a write")
struct HostileDiskInputTests {
    // MARK: Sizes another process declares in the cache directory

    /// A cache directory on a file system that takes sparse files of 2^62 bytes (tmpfs), or
    /// `nil` where none is at hand.
    private static let sparseRoot: URL? = {
        let root = URL(fileURLWithPath: "/dev/shm/CachedImageHostile-\(UUID().uuidString)", isDirectory: true)
        guard (try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)) != nil else { return nil }
        let probe = root.appendingPathComponent("probe").path
        defer { unlink(probe) }
        guard FileManager.default.createFile(atPath: probe, contents: nil), truncate(probe, 1 << 62) == 0 else {
            try? FileManager.default.removeItem(at: root)
            return nil
        }
        return root
    }()

    /// Plants an entry-named file of `size` bytes (a hole: nothing is written) in `directory`.
    private static func plantSparseEntry(named key: String, size: Int, in directory: URL) throws {
        let path = entryFile(for: key, in: directory).path
        try #require(FileManager.default.createFile(atPath: path, contents: nil))
        try #require(truncate(path, off_t(size)) == 0)
    }

    @Test(
        "entry files planted with sizes of 2^62 bytes are deleted at open, not added up past Int.max",
        .enabled(if: sparseRoot != nil, "needs a file system with sparse files of 2^62 bytes (tmpfs at /dev/shm)")
    )
    func plantedHugeFilesAtOpen() throws {
        let directory = try #require(Self.sparseRoot).appendingPathComponent(UUID().uuidString, isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.plantSparseEntry(named: "planted-1", size: 1 << 62, in: directory)
        try Self.plantSparseEntry(named: "planted-2", size: 1 << 62, in: directory)

        let cache = try DiskCache(directory: directory, clock: DiskTestClock())
        let png = ImageFixtures.png(width: 8, height: 8, seed: 1)
        cache.store(png, metadata: bareMetadata, forKey: "real")
        cache.flush()
        #expect(cache.entry(forKey: "real")?.data == png)
        #expect(cache.entry(forKey: "planted-1") == nil)
        #expect(cache.entryCount == 1)
        #expect(cache.totalSize == (try fileSize(entryFile(for: "real", in: directory))))
        #expect(try entryFiles(in: directory).count == 1, "the planted files are deleted")
    }

    @Test(
        "entry files of 2^62 bytes planted by another process stay out of the index when this one catches up",
        .enabled(if: sparseRoot != nil, "needs a file system with sparse files of 2^62 bytes (tmpfs at /dev/shm)")
    )
    func plantedHugeFilesAtResync() throws {
        let directory = try #require(Self.sparseRoot).appendingPathComponent(UUID().uuidString, isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try DiskCache(directory: directory, clock: DiskTestClock())
        let png = ImageFixtures.png(width: 8, height: 8, seed: 2)
        cache.store(png, metadata: bareMetadata, forKey: "first")
        cache.flush()

        // Another process plants the files and raises the change count, as every writer does.
        try Self.plantSparseEntry(named: "planted-1", size: 1 << 62, in: directory)
        try Self.plantSparseEntry(named: "planted-2", size: 1 << 62, in: directory)
        let other = DiskCacheDirectoryLock(
            directoryPath: directory.path, changeCountPath: directory.appendingPathComponent("index/changes").path
        )
        #expect(other.writeChangeCount(cache.directoryLock.readChangeCount() &+ 1_000))

        cache.store(png, metadata: bareMetadata, forKey: "second")
        cache.flush()
        #expect(cache.entry(forKey: "first")?.data == png)
        #expect(cache.entry(forKey: "second")?.data == png)
        #expect(cache.totalSize < 1 << 62)
    }

    @Test("a snapshot whose record sizes add up to Int.max - 1 is not trusted: the cache opens from a listing and keeps counting")
    func snapshotSizesNearIntMax() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        let png = ImageFixtures.png(width: 8, height: 8, seed: 3)
        var changeCount: UInt64 = 0
        do {
            let cache = try DiskCache(directory: dir.cache, sizeLimit: .max, clock: clock)
            cache.store(png, metadata: bareMetadata, forKey: "a")
            cache.store(png, metadata: bareMetadata, forKey: "b")
            cache.flush()
            changeCount = cache.directoryLock.readChangeCount()
        }
        // Another process rewrites the snapshot, intact and matching the directory, with sizes
        // that each pass and together leave one byte below Int.max.
        let snapshotURL = dir.cache.appendingPathComponent("index/snapshot")
        let stamp = try #require(DiskCacheFileIO.directoryStamp(atPath: dir.cache.path))
        let records = try #require(DiskCacheIndexSnapshot.decode(
            [UInt8](Data(contentsOf: snapshotURL)), expecting: stamp, changeCount: changeCount, firstGeneration: 1
        ))
        #expect(records.count == 2)
        let inflated = records.map { record in
            var record = record
            record.size = Int.max / 2
            return record
        }
        try Data(DiskCacheIndexSnapshot.encode(inflated, stamp: stamp, changeCount: changeCount)).write(to: snapshotURL)

        let reopened = try DiskCache(directory: dir.cache, sizeLimit: .max, clock: clock)
        reopened.store(png, metadata: bareMetadata, forKey: "c")
        reopened.flush()
        #expect(reopened.indexSource == .listing)
        #expect(reopened.entryCount == 3)
        #expect(reopened.totalSize == 3 * (try fileSize(entryFile(for: "c", in: dir.cache))))
        #expect(reopened.entry(forKey: "a")?.data == png)
    }

    // MARK: Files that are not regular files

    @Test("a FIFO planted at an entry's path is a miss, not a read that waits forever for a writer")
    func fifoAtEntryPath() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache(directory: dir.cache, clock: DiskTestClock())
        let png = ImageFixtures.png(width: 8, height: 8, seed: 4)
        cache.store(png, metadata: bareMetadata, forKey: "real")
        cache.flush()
        try #require(mkfifo(entryFile(for: "planted", in: dir.cache).path, 0o644) == 0)
        #expect(cache.entry(forKey: "planted") == nil)
        #expect(cache.entry(forKey: "real")?.data == png)
        // A fresh open (the index from a listing: the FIFO is not listed) reads it the same way.
        let reopened = try DiskCache(directory: dir.cache, clock: DiskTestClock())
        #expect(reopened.entry(forKey: "planted") == nil)
        #expect(reopened.entry(forKey: "real")?.data == png)
    }

    @Test("a FIFO planted as the index snapshot is ignored: the cache opens from a listing")
    func fifoAsSnapshot() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let png = ImageFixtures.png(width: 8, height: 8, seed: 5)
        do {
            let cache = try DiskCache(directory: dir.cache, clock: DiskTestClock())
            cache.store(png, metadata: bareMetadata, forKey: "real")
            cache.flush()
        }
        let snapshot = dir.cache.appendingPathComponent("index/snapshot").path
        try #require(unlink(snapshot) == 0)
        try #require(mkfifo(snapshot, 0o644) == 0)
        let reopened = try DiskCache(directory: dir.cache, clock: DiskTestClock())
        #expect(reopened.entryCount == 1)
        #expect(reopened.indexSource == .listing)
        #expect(reopened.entry(forKey: "real")?.data == png)
    }

    @Test(
        "a symbolic link planted at the change count's file or the snapshot's predictable temporary name is not followed: the file it names is not overwritten",
        arguments: ["index/changes", "index/snapshot.\(DiskCache.processTag).tmp"]
    )
    func plantedSymbolicLink(at name: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let victim = dir.root.appendingPathComponent("precious.txt")
        let precious = Data("a file the cache must never write".utf8)
        try precious.write(to: victim)
        try FileManager.default.createDirectory(at: dir.cache.appendingPathComponent("index"), withIntermediateDirectories: true)
        try #require(symlink(victim.path, dir.cache.appendingPathComponent(name).path) == 0)

        let cache = try DiskCache(directory: dir.cache, clock: DiskTestClock())
        let png = ImageFixtures.png(width: 8, height: 8, seed: 6)
        cache.store(png, metadata: bareMetadata, forKey: "real")
        cache.flush() // raises the change count, writes the snapshot
        #expect(cache.entry(forKey: "real")?.data == png)
        #expect(try Data(contentsOf: victim) == precious)
    }

    // MARK: Lengths in an entry's header

    @Test(
        "an entry whose resealed header declares a length of 0xFFFFFFFF is a miss",
        arguments: ["header length", "key length", "content type length"]
    )
    func entryLengthNearUInt32Max(field: String) throws {
        // Such lengths do not fit a 32-bit `Int` (watchOS), where `Int(_:)` trapped; on 64 bits
        // this pins the answer: a miss, and the file is dropped.
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let key = "entry"
        let png = ImageFixtures.png(width: 8, height: 8, seed: 8)
        do {
            let cache = try DiskCache(directory: dir.cache, clock: DiskTestClock())
            cache.store(png, metadata: sampleMetadata, forKey: key)
            cache.flush()
        }
        let file = entryFile(for: key, in: dir.cache)
        var bytes = try [UInt8](Data(contentsOf: file))
        let headerLength = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16 | Int(bytes[11]) << 24
        // Offsets: header length 8, key length 28; the content type's length follows the key,
        // the flags (2), storedAt and initialAge (16) and sampleMetadata's lifetime (8).
        let offset = switch field {
        case "header length": 8
        case "key length": 28
        default: 32 + key.utf8.count + 2 + 16 + 8
        }
        bytes.replaceSubrange(offset..<(offset + 4), with: [0xFF, 0xFF, 0xFF, 0xFF])
        let end = headerLength - DiskCacheEntryFormat.checksumLength
        let checksum = FastChecksum.checksum(Array(bytes[..<end]), seed: DiskCacheEntryFormat.headerSeed)
        withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(end..<headerLength, with: $0) }
        try Data(bytes).write(to: file)

        let reopened = try DiskCache(directory: dir.cache, clock: DiskTestClock())
        #expect(reopened.entry(forKey: key) == nil)
        reopened.flush()
        #expect(reopened.entryCount == 0)
    }
}
