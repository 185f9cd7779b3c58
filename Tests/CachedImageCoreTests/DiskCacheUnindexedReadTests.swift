import Foundation
import Testing
@testable import CachedImageCore

/// Opening does not load the index: reads are served from the entry files until something needs
/// it (a write, a count, `flush()`) or a few screens of reads have gone by.
@Suite("DiskCache reads before the index is loaded")
struct DiskCacheUnindexedReadTests {
    /// Stores `count` entries of 3,000 bytes in `dir`, oldest first, and closes the cache.
    private static func fill(_ dir: TemporaryDirectory, count: Int, clock: DiskTestClock) throws {
        let cache = try DiskCache(directory: dir.cache, clock: clock)
        for index in 0..<count {
            clock.advance()
            cache.store(diskTestBytes(3_000, seed: UInt8(index)), metadata: sampleMetadata, forKey: "key-\(index)")
        }
        cache.flush()
    }

    /// A cache on `dir` whose queue is held, so its index does not load until `resume()`.
    private static func heldCache(_ dir: TemporaryDirectory, clock: DiskTestClock, sizeLimit: Int = DiskCache.defaultSizeLimit) throws -> (DiskCache, DispatchQueue) {
        let queue = DispatchQueue(label: "held")
        queue.suspend()
        let cache = try DiskCache(
            directory: dir.cache, sizeLimit: sizeLimit, clock: clock, errorHandler: nil,
            nameForKey: { KeyHasher.name(for: $0) }, queue: queue
        )
        return (cache, queue)
    }

    @Test("Entries, misses and corrupt files are answered from the files before the index loads")
    func readsBeforeLoad() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        do {
            let cache = try DiskCache(directory: dir.cache, clock: clock)
            cache.store(diskTestBytes(3_000, seed: 1), metadata: sampleMetadata, forKey: "kept")
            cache.store(diskTestBytes(3_000, seed: 2), metadata: sampleMetadata, forKey: "damaged")
            cache.flush()
        }
        var damaged = try Data(contentsOf: entryFile(for: "damaged", in: dir.cache))
        damaged[damaged.count - 1] ^= 0xFF
        try damaged.write(to: entryFile(for: "damaged", in: dir.cache))

        let (cache, queue) = try Self.heldCache(dir, clock: clock)
        let entry = cache.entry(forKey: "kept")
        #expect(entry?.data == diskTestBytes(3_000, seed: 1))
        #expect(entry?.metadata == sampleMetadata)
        #expect(cache.entry(forKey: "absent") == nil)
        #expect(cache.entry(forKey: "damaged") == nil, "a corrupt file is a miss, never wrong bytes")

        queue.resume()
        cache.flush()
        #expect(cache.entryCount == 1, "the corrupt entry is dropped once the index is loaded")
        #expect(!FileManager.default.fileExists(atPath: entryFile(for: "damaged", in: dir.cache).path))
        #expect(cache.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: dir.cache))
    }

    @Test("A read before the index loads counts as a use: that entry outlives older ones when the limit is lowered")
    func readsBeforeLoadAreUses() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        try Self.fill(dir, count: 3, clock: clock)
        let oneEntry = try fileSize(entryFile(for: "key-0", in: dir.cache))

        // key-0 is the least recently used; reading it before the index loads makes it the most.
        clock.advance()
        do {
            let (cache, queue) = try Self.heldCache(dir, clock: clock)
            #expect(cache.entry(forKey: "key-0") != nil)
            queue.resume()
            #expect(cache.allEntries().map(\.key) == ["key-0", "key-2", "key-1"])
            cache.flush()
        }

        // Reopened with room for one entry, the one read last is the one kept.
        let reopened = try DiskCache(directory: dir.cache, sizeLimit: oneEntry, clock: clock)
        reopened.flush()
        #expect(reopened.entryCount == 1)
        #expect(reopened.entry(forKey: "key-0") != nil)
    }

    @Test("Opening, reading and asking what is stored do no index work; the first write loads the index and counts the reads before it")
    func firstWriteLoadsTheIndex() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        try Self.fill(dir, count: 3, clock: clock)

        clock.advance()
        let cache = try DiskCache(directory: dir.cache, clock: clock)
        #expect(cache.entry(forKey: "key-0")?.data == diskTestBytes(3_000, seed: 0))
        #expect(cache.entry(forKey: "absent") == nil)
        #expect(cache.containsEntry(forKey: "key-1"))
        #expect(!cache.containsEntry(forKey: "absent"))
        #expect(!cache.withState { $0.isIndexLoadRequested }, "a relaunch's reads and lookups leave the index alone")

        clock.advance()
        cache.store(diskTestBytes(3_000, seed: 9), metadata: sampleMetadata, forKey: "new")
        #expect(cache.allEntries().map(\.key) == ["new", "key-0", "key-2", "key-1"])
        cache.flush()
        #expect(cache.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: dir.cache))
    }

    @Test("A session that only reads loads the index after a few screens: a lowered size limit shrinks the disk without a write")
    func readOnlySessionLoadsTheIndex() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        try Self.fill(dir, count: 3, clock: clock)
        let oneEntry = try fileSize(entryFile(for: "key-0", in: dir.cache))

        clock.advance()
        let cache = try DiskCache(directory: dir.cache, sizeLimit: oneEntry, clock: clock)
        for _ in 0..<DiskCache.readsBeforeLoadLimit {
            #expect(cache.entry(forKey: "key-0") != nil)
        }
        cache.queue.sync {} // the load the reads asked for
        cache.queue.sync {} // and the evictions it queued (under the lock: the load takes none)
        #expect(try entryFiles(in: dir.cache).count == 1, "the limit holds on disk, not only in the index")
        #expect(cache.entry(forKey: "key-0")?.data == diskTestBytes(3_000, seed: 0), "the entry read is the one kept")
    }
}
