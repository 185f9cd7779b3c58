import Foundation
import Testing
@testable @_spi(Benchmarks) import CachedImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Changes asked for before the index is loaded: a conditional update that cannot write an older
/// response's validators over a newer store, and removals that stay removed.
@Suite("DiskCache: changes before the index load")
struct DiskCacheBeforeLoadTests {
    private let newer = CachedResponseMetadata(contentType: "image/png", etag: "\"v2\"", storedAt: Date(timeIntervalSince1970: 2_000))
    private let notModified = CachedResponseMetadata(contentType: "image/png", etag: "\"v1\"", storedAt: Date(timeIntervalSince1970: 3_000))

    @Test("updateMetadata(ifStillStored:) before the load: a store that comes while the file is compared wins; the 304's validators are not written over it")
    func conditionalUpdateBeforeLoad() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        do {
            let writer = try DiskCache(directory: dir.cache)
            writer.store(diskTestBytes(1_000, seed: 1), metadata: sampleMetadata, forKey: "k")
            writer.flush()
        }
        // A newer response is stored while the comparison reads the file.
        let cacheBox = Locked<DiskCache?>(nil)
        let storeDuringRead = Locked(false)
        let cache = try DiskCache.forTesting(dir.cache, readEntryFile: { path, key, maximumSize in
                let result = DiskCacheFileIO.readEntry(atPath: path, key: key, maximumSize: maximumSize)
                if storeDuringRead.withLock({ $0 }) {
                    storeDuringRead.withLock { $0 = false }
                    cacheBox.withLock { $0 }?.store(diskTestBytes(2_000, seed: 2), metadata: newer, forKey: key)
                }
                return result
            })
        cacheBox.withLock { $0 = cache }
        let read = try #require(cache.entry(forKey: "k"))
        #expect(cache.withState { !$0.isIndexLoaded })

        // The index load the store asks for waits (the queue is held) until the update is decided.
        let held = DispatchSemaphore(value: 0)
        cache.queue.async { held.wait() }
        storeDuringRead.withLock { $0 = true }
        #expect(!cache.updateMetadata(notModified, ifStillStored: read), "applied over the newer store")
        #expect(cache.withState { !$0.isIndexLoaded })
        held.signal()
        #expect(cache.entry(forKey: "k") == DiskCache.Entry(key: "k", data: diskTestBytes(2_000, seed: 2), metadata: newer))
        cache.flush()
        let reopened = try DiskCache.forTesting(dir.cache)
        #expect(reopened.entry(forKey: "k")?.metadata == newer)

        // With nothing in between, it applies.
        let fresh = try DiskCache.forTesting(dir.cache)
        let current = try #require(fresh.entry(forKey: "k"))
        #expect(fresh.updateMetadata(notModified, ifStillStored: current))
        fresh.flush()
        #expect(try DiskCache.forTesting(dir.cache).entry(forKey: "k")?.metadata == notModified)
    }

    @Test("updateMetadata(ifStillStored:): another process's newer response, stored after the comparison, keeps its own metadata when the header is rewritten")
    func conditionalUpdateAcrossProcesses() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let peer = try DiskCache.forTesting(dir.cache)
        peer.store(diskTestBytes(1_000, seed: 1), metadata: sampleMetadata, forKey: "k")
        peer.flush()
        let peerStoresDuringRead = Locked(false)
        let cache = try DiskCache.forTesting(dir.cache, readEntryFile: { path, key, maximumSize in
                let result = DiskCacheFileIO.readEntry(atPath: path, key: key, maximumSize: maximumSize)
                if peerStoresDuringRead.withLock({ $0 }) {
                    peerStoresDuringRead.withLock { $0 = false }
                    peer.store(diskTestBytes(2_000, seed: 2), metadata: newer, forKey: key)
                    peer.flush()
                }
                return result
            })
        #expect(cache.entryCount == 1) // the index is loaded
        let read = try #require(cache.entry(forKey: "k"))
        peerStoresDuringRead.withLock { $0 = true }
        #expect(cache.updateMetadata(notModified, ifStillStored: read), "the same bytes when compared")
        cache.flush()
        let reopened = try DiskCache.forTesting(dir.cache)
        #expect(reopened.entry(forKey: "k") == DiskCache.Entry(key: "k", data: diskTestBytes(2_000, seed: 2), metadata: newer))
    }

    @Test("a removal asked for before the load stays removed when the loaded index does not know the file (it came after the directory was read)")
    func removalBeforeLoadOfAnUnindexedFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let elsewhere = try TemporaryDirectory()
        defer { elsewhere.cleanUp() }
        do {
            let writer = try DiskCache.forTesting(dir.cache)
            writer.store(diskTestBytes(500), metadata: sampleMetadata, forKey: "other")
            writer.flush() // a snapshot that knows "other" only
            let source = try DiskCache.forTesting(elsewhere.cache)
            source.store(diskTestBytes(1_000), metadata: sampleMetadata, forKey: "k")
            source.flush()
        }
        // Another process's entry, which the snapshot (still matching the directory) misses.
        let stamp = try #require(DiskCacheFileIO.directoryStamp(atPath: dir.cache.path))
        try FileManager.default.copyItem(at: entryFile(for: "k", in: elsewhere.cache), to: entryFile(for: "k", in: dir.cache))
        var times = [timespec(tv_sec: Int(stamp.seconds), tv_nsec: Int(stamp.nanoseconds)), timespec(tv_sec: Int(stamp.seconds), tv_nsec: Int(stamp.nanoseconds))]
        #expect(utimensat(AT_FDCWD, dir.cache.path, &times, 0) == 0)

        let cache = try DiskCache.forTesting(dir.cache)
        let held = DispatchSemaphore(value: 0)
        cache.queue.async { held.wait() } // the load waits
        cache.removeEntry(forKey: "k")
        #expect(cache.withState { !$0.isIndexLoaded })
        #expect(cache.entry(forKey: "k") == nil)
        held.signal()
        cache.flush()
        #expect(cache.indexSource == .snapshot)
        #expect(cache.entry(forKey: "k") == nil, "the removed entry came back")
        #expect(!FileManager.default.fileExists(atPath: entryFile(for: "k", in: dir.cache).path))
        #expect(cache.entry(forKey: "other") != nil)
    }
}
