import Foundation
import Testing
@testable import CachedImageCore

/// `DiskCache.metadata(forKey:)`: an entry's metadata from its header, without its bytes (what a
/// background prefetch reads to decide whether an image on disk is still fresh).
@Suite("Disk cache: metadata without the bytes")
struct DiskCacheMetadataTests {
    static let key = "https://example.com/feed/1.jpg"

    @Test("what this process stored or updated first, then the file's header, after a relaunch too, whether the index has loaded or not")
    func storedUpdatedRelaunched() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache(directory: dir.cache)
        #expect(cache.metadata(forKey: Self.key) == nil)
        cache.store(diskTestBytes(20_000), metadata: sampleMetadata, forKey: Self.key)
        #expect(cache.metadata(forKey: Self.key) == sampleMetadata)
        cache.updateMetadata(bareMetadata, forKey: Self.key)
        #expect(cache.metadata(forKey: Self.key) == bareMetadata, "an update not written yet")
        cache.flush()
        #expect(cache.metadata(forKey: Self.key) == bareMetadata)
        #expect(cache.metadata(forKey: "https://example.com/feed/2.jpg") == nil)

        let relaunched = try DiskCache(directory: dir.cache)
        #expect(relaunched.metadata(forKey: Self.key) == bareMetadata, "from the header, index not loaded")
        _ = relaunched.entryCount // Loads the index.
        #expect(relaunched.metadata(forKey: Self.key) == bareMetadata, "from the header, index loaded")
        relaunched.removeEntry(forKey: Self.key)
        #expect(relaunched.metadata(forKey: Self.key) == nil, "removed, file deletion perhaps still queued")
    }

    @Test("the body is neither read nor verified: a damaged body keeps its header's metadata, and the read that needs the bytes misses")
    func headerOnly() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache(directory: dir.cache)
        cache.store(diskTestBytes(20_000), metadata: sampleMetadata, forKey: Self.key)
        cache.flush()
        let url = entryFile(for: Self.key, in: dir.cache)
        var file = try Data(contentsOf: url)
        file[file.count - 1] ^= 0x80
        try file.write(to: url)

        let relaunched = try DiskCache(directory: dir.cache)
        _ = relaunched.entryCount // Loads the index.
        #expect(relaunched.metadata(forKey: Self.key) == sampleMetadata)
        #expect(relaunched.entry(forKey: Self.key) == nil)
        #expect(relaunched.metadata(forKey: Self.key) == nil, "the failed read deleted the entry")
    }

    @Test("another key whose entry name is the same file is not its entry")
    func otherKeyInFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache(directory: dir.cache)
        cache.store(diskTestBytes(2_000), metadata: sampleMetadata, forKey: Self.key)
        cache.flush()
        // The file of another key, moved where this key's entry lives (as a hash collision would).
        let other = "https://example.com/other.jpg"
        cache.store(diskTestBytes(2_000), metadata: bareMetadata, forKey: other)
        cache.flush()
        try FileManager.default.removeItem(at: entryFile(for: Self.key, in: dir.cache))
        try FileManager.default.copyItem(at: entryFile(for: other, in: dir.cache), to: entryFile(for: Self.key, in: dir.cache))
        let relaunched = try DiskCache(directory: dir.cache)
        #expect(relaunched.metadata(forKey: Self.key) == nil)
        #expect(relaunched.metadata(forKey: other) == bareMetadata)
    }

    @Test("touch marks an entry used without reading it, and metadata does not: eviction by size keeps the touched one, before and after a relaunch")
    func touchWithoutReading() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        let cache = try cacheOfThree(in: dir.cache, clock: clock)
        #expect(cache.metadata(forKey: "a") == bareMetadata) // Not a use.
        cache.touch(forKey: "b")
        clock.advance()
        cache.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: "d")
        #expect(!cache.containsEntry(forKey: "a"), "the least recently used, metadata read or not")
        #expect(cache.containsEntry(forKey: "b"))
        cache.flush()

        // A relaunch: touched before the index loads, applied when it does.
        let relaunched = try DiskCache(directory: dir.cache, sizeLimit: threeEntryLimit, clock: clock)
        clock.advance()
        relaunched.touch(forKey: "c")
        clock.advance()
        relaunched.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: "e")
        relaunched.flush() // The index loaded, the store applied and the sweep run.
        #expect(!relaunched.containsEntry(forKey: "b"))
        #expect(relaunched.containsEntry(forKey: "c"))
    }
}
