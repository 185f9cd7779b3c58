import Foundation
import Testing
@_spi(Benchmarks) @testable import CachedImageCore

/// Pinned entries: eviction by size passes over them, in this process and another one, before
/// and after a relaunch, until they are unpinned; their own budget refuses what would pass it.
@Suite("DiskCache: pinned entries")
struct DiskCachePinningTests {
    /// Each entry is 1,000 bytes plus a header of about 60: three fit in 3,500 bytes, four do not.
    static let entrySize = 1_000
    static let sizeLimit = 3_500
    static let pinnedLimit = 2_500

    /// A cache whose file operations run on `queue`, which a test can hold.
    static func cache(in dir: TemporaryDirectory, clock: DiskTestClock, queue: DispatchQueue) throws -> DiskCache {
        try DiskCache(
            directory: dir.cache, sizeLimit: sizeLimit, clock: clock, errorHandler: nil,
            nameForKey: { KeyHasher.name(for: $0) }, queue: queue
        )
    }

    @Test("a pinned entry survives eviction pressure: every other entry is evicted before it, and it never counts against the size limit")
    func survivesEvictionPressure() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        let queue = DispatchQueue(label: "DiskCachePinningTests")
        let cache = try Self.cache(in: dir, clock: clock, queue: queue)
        #expect(cache.storePinned(diskTestBytes(Self.entrySize, seed: 9), metadata: bareMetadata, forKey: "pinned", limit: Self.pinnedLimit) == .pinned)
        cache.flush()
        clock.advance()
        // Held: the index alone decides (the files' markers cannot make up for it).
        queue.suspend()
        for index in 0..<10 {
            cache.store(diskTestBytes(Self.entrySize, seed: UInt8(index)), metadata: bareMetadata, forKey: "other-\(index)")
            clock.advance()
        }
        #expect(cache.isEntryPinned(forKey: "pinned"))
        #expect(cache.entryCount == 4)
        queue.resume()
        cache.flush()
        #expect(cache.entry(forKey: "pinned")?.data == diskTestBytes(Self.entrySize, seed: 9))
        #expect(cache.isEntryPinned(forKey: "pinned"))
        #expect(cache.entryCount == 4, "three others fit beside the pinned entry: it is outside the limit")
        #expect(cache.totalSize - cache.pinnedSize <= Self.sizeLimit)
        #expect(FileManager.default.fileExists(atPath: entryFile(for: "pinned", in: dir.cache).path))
    }

    @Test("a pin survives a relaunch, from the snapshot or from a listing: the new cache's eviction passes over it", arguments: [true, false])
    func survivesRelaunch(fromSnapshot: Bool) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        do {
            let first = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit, clock: clock)
            first.store(diskTestBytes(Self.entrySize, seed: 9), metadata: bareMetadata, forKey: "pinned")
            #expect(first.pinEntry(forKey: "pinned", limit: Self.pinnedLimit) == .pinned)
            clock.advance()
            for key in ["a", "b"] {
                first.store(diskTestBytes(Self.entrySize), metadata: bareMetadata, forKey: key)
                clock.advance()
            }
            first.flush()
        }
        let snapshot = dir.cache.appendingPathComponent("index/snapshot")
        #expect(FileManager.default.fileExists(atPath: snapshot.path))
        if !fromSnapshot { try FileManager.default.removeItem(at: snapshot) }

        // Opened with room for one entry: the load evicts down to it, the oldest (pinned) first were it not pinned.
        let second = try DiskCache(directory: dir.cache, sizeLimit: 1_500, clock: clock)
        #expect(second.isEntryPinned(forKey: "pinned"))
        second.store(diskTestBytes(Self.entrySize), metadata: bareMetadata, forKey: "c")
        second.flush()
        #expect(second.indexSource == (fromSnapshot ? .snapshot : .listing))
        #expect(second.entry(forKey: "pinned")?.data == diskTestBytes(Self.entrySize, seed: 9))
        #expect(!second.containsEntry(forKey: "a") && !second.containsEntry(forKey: "b"))
        #expect(second.containsEntry(forKey: "c"))
    }

    @Test("another process's cache on the directory, whose index saw the entry unpinned, never evicts it once pinned, and learns the pin")
    func anotherProcessRespectsThePin() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        // Two caches on one directory, each with its own index and lock: two processes.
        let app = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit, clock: clock)
        app.store(diskTestBytes(Self.entrySize, seed: 9), metadata: bareMetadata, forKey: "pinned")
        app.flush()
        clock.advance()
        let widgetQueue = DispatchQueue(label: "DiskCachePinningTests.widget")
        let widget = try Self.cache(in: dir, clock: clock, queue: widgetQueue)
        #expect(widget.entryCount == 1)
        #expect(!widget.isEntryPinned(forKey: "pinned"))

        #expect(app.pinEntry(forKey: "pinned", limit: Self.pinnedLimit) == .pinned)
        app.flush()
        // Held: the widget decides its evictions before any of its file operations could learn
        // of the pin; the deletions run under the lock, where the marker is.
        widgetQueue.suspend()
        for index in 0..<6 {
            widget.store(diskTestBytes(Self.entrySize, seed: UInt8(index)), metadata: bareMetadata, forKey: "widget-\(index)")
            clock.advance()
        }
        #expect(!widget.isEntryPinned(forKey: "pinned") && !widget.containsEntry(forKey: "pinned"), "the widget's index evicted it")
        widgetQueue.resume()
        widget.flush()
        #expect(FileManager.default.fileExists(atPath: entryFile(for: "pinned", in: dir.cache).path), "the widget's sweep deleted a pinned entry")
        #expect(widget.isEntryPinned(forKey: "pinned"), "the widget's index learns the pin from the directory")
        #expect(widget.entry(forKey: "pinned")?.data == diskTestBytes(Self.entrySize, seed: 9))
        #expect(app.entry(forKey: "pinned")?.data == diskTestBytes(Self.entrySize, seed: 9))
    }

    @Test("unpinning returns the entry to the size limit: eviction takes it in its turn, marker and all")
    func unpinningLetsEvictionTakeIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let clock = DiskTestClock()
        let cache = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit, clock: clock)
        #expect(cache.storePinned(diskTestBytes(Self.entrySize, seed: 9), metadata: bareMetadata, forKey: "pinned", limit: Self.pinnedLimit) == .pinned)
        clock.advance()
        for key in ["a", "b", "c"] {
            cache.store(diskTestBytes(Self.entrySize), metadata: bareMetadata, forKey: key)
            clock.advance()
        }
        cache.flush()
        #expect(cache.entryCount == 4)
        cache.unpinEntry(forKey: "pinned")
        #expect(!cache.containsEntry(forKey: "pinned"), "the least recently used entry, over the limit once unpinned")
        #expect(cache.pinnedSize == 0)
        cache.flush()
        #expect(!FileManager.default.fileExists(atPath: entryFile(for: "pinned", in: dir.cache).path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.cache.appendingPathComponent("pinned").path).isEmpty)
    }

    @Test("the pinned budget refuses a pin that would pass it, changing nothing: the pinned entries stay, the new one is not stored (or stays unpinned)")
    func budgetRefuses() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let errors = Locked<[DiskCache.Error]>([])
        let cache = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit) { error in errors.withLock { $0.append(error) } }
        #expect(cache.storePinned(diskTestBytes(Self.entrySize, seed: 1), metadata: bareMetadata, forKey: "one", limit: Self.pinnedLimit) == .pinned)
        #expect(cache.storePinned(diskTestBytes(Self.entrySize, seed: 2), metadata: bareMetadata, forKey: "two", limit: Self.pinnedLimit) == .pinned)
        let pinned = cache.pinnedSize
        let refused = cache.storePinned(diskTestBytes(Self.entrySize, seed: 3), metadata: bareMetadata, forKey: "three", limit: Self.pinnedLimit)
        guard case .overLimit(let size, let pinnedSize, let limit) = refused else {
            Issue.record("expected the budget to refuse, got \(refused)")
            return
        }
        #expect(pinnedSize == pinned && limit == Self.pinnedLimit && size > Self.entrySize)
        #expect(!cache.containsEntry(forKey: "three"))
        // Storing again under a pinned key replaces its own share of the budget.
        #expect(cache.storePinned(diskTestBytes(Self.entrySize, seed: 4), metadata: bareMetadata, forKey: "two", limit: Self.pinnedLimit) == .pinned)
        cache.store(diskTestBytes(Self.entrySize, seed: 5), metadata: bareMetadata, forKey: "plain")
        #expect(cache.pinEntry(forKey: "plain", limit: Self.pinnedLimit) == .overLimit(size: size, pinnedSize: pinned, limit: Self.pinnedLimit))
        #expect(!cache.isEntryPinned(forKey: "plain"))
        #expect(cache.pinEntry(forKey: "missing", limit: Self.pinnedLimit) == .notStored)
        // No entry is larger than the size limit, pinned or not, whatever the pinned budget.
        let tooLarge = cache.storePinned(diskTestBytes(Self.sizeLimit), metadata: bareMetadata, forKey: "large", limit: 100_000)
        #expect(tooLarge == .overLimit(size: size - Self.entrySize + Self.sizeLimit, pinnedSize: pinned, limit: Self.sizeLimit + pinned))
        #expect(!cache.containsEntry(forKey: "large"))
        cache.flush()
        #expect(errors.withLock { $0 }.isEmpty)
        #expect(cache.isEntryPinned(forKey: "one") && cache.isEntryPinned(forKey: "two"))
        #expect(cache.entry(forKey: "two")?.data == diskTestBytes(Self.entrySize, seed: 4))
    }

    @Test("a new version of a pinned entry stays pinned within the pinned budget; one that would pass it is stored unpinned, its marker deleted, and reported")
    func newVersionKeepsItsPinWithinTheBudget() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let errors = Locked<[DiskCache.Error]>([])
        let cache = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit) { error in errors.withLock { $0.append(error) } }
        for key in ["a", "b"] {
            #expect(cache.storePinned(diskTestBytes(Self.entrySize), metadata: bareMetadata, forKey: key, limit: Self.pinnedLimit) == .pinned)
        }
        cache.flush()
        cache.store(diskTestBytes(Self.entrySize + 200, seed: 1), metadata: bareMetadata, forKey: "b", pinnedLimit: Self.pinnedLimit)
        #expect(cache.isEntryPinned(forKey: "b"), "a revalidated version within the budget keeps its pin")
        cache.store(diskTestBytes(2 * Self.entrySize, seed: 2), metadata: bareMetadata, forKey: "a", pinnedLimit: Self.pinnedLimit)
        cache.flush()
        #expect(!cache.isEntryPinned(forKey: "a"), "a version past the budget is pinned")
        #expect(cache.pinnedSize <= Self.pinnedLimit)
        #expect(errors.withLock { $0.map(\.operation) } == [.pin])
        let underlying = errors.withLock { $0.first?.underlying } as? ImagePipeline.Error
        guard case .pinnedSizeLimitExceeded(let url, let size, _, let limit)? = underlying else {
            Issue.record("the refusal is the pipeline's typed error, not \(String(describing: underlying))")
            return
        }
        #expect(url.absoluteString == "a")
        #expect(size >= 2 * Self.entrySize && limit == Self.pinnedLimit, "the entry's file, header included, against the budget")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.cache.appendingPathComponent("pinned").path).count == 1)
        let relaunched = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit)
        #expect(!relaunched.isEntryPinned(forKey: "a") && relaunched.isEntryPinned(forKey: "b"))
        #expect(relaunched.entry(forKey: "a")?.data == diskTestBytes(2 * Self.entrySize, seed: 2))
    }

    @Test("a marker whose entry is gone (left at open, or by another process later) is deleted: it does not pin a later unpinned store of that name", arguments: [true, false])
    func orphanMarkerPinsNothing(leftBeforeOpen: Bool) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let pins = dir.cache.appendingPathComponent("pinned")
        let marker = pins.appendingPathComponent(entryFile(for: "k", in: dir.cache).lastPathComponent)
        func leaveMarker() throws {
            try FileManager.default.createDirectory(at: pins, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: marker.path, contents: Data()))
        }
        if leftBeforeOpen { try leaveMarker() }
        let cache = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit)
        #expect(cache.entryCount == 0)
        if !leftBeforeOpen {
            let other = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit)
            #expect(other.entryCount == 0) // loaded
            try leaveMarker()
            other.store(diskTestBytes(10), metadata: bareMetadata, forKey: "other") // the directory changed: a resync
            other.flush()
            cache.store(diskTestBytes(10), metadata: bareMetadata, forKey: "nudge")
            cache.flush()
        }
        cache.store(diskTestBytes(Self.entrySize), metadata: bareMetadata, forKey: "k")
        cache.flush()
        #expect(!FileManager.default.fileExists(atPath: marker.path))
        #expect(!(try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit).isEntryPinned(forKey: "k")), "a relaunch found the entry pinned")
    }

    @Test("a pinning store (a .pinOnDisk download) never waits for the index: it returns while the load is held, and pins once it is loaded")
    func pinningStoreNeverWaits() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let queue = DispatchQueue(label: "DiskCachePinningTests.load")
        queue.suspend() // the index load cannot run
        let cache = try Self.cache(in: dir, clock: DiskTestClock(), queue: queue)
        let stored = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            cache.store(diskTestBytes(Self.entrySize), metadata: bareMetadata, forKey: "a", pinnedLimit: Self.pinnedLimit, pinning: true)
            stored.signal()
        }
        let returned = stored.wait(timeout: .now() + 30) == .success
        queue.resume()
        #expect(returned, "the store waited for the index")
        if !returned { _ = stored.wait(timeout: .now() + 30) }
        cache.flush()
        #expect(cache.isEntryPinned(forKey: "a"))
        #expect(try DiskCache(directory: dir.cache).isEntryPinned(forKey: "a"), "a relaunch finds the pin")
    }

    @Test("an entry another process stored and pinned, read before this index learnt of it, is adopted pinned")
    func adoptsAnotherProcesssPin() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let app = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit)
        let widget = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit)
        #expect(widget.entryCount == 0)
        #expect(app.storePinned(diskTestBytes(Self.entrySize), metadata: bareMetadata, forKey: "a", limit: Self.pinnedLimit) == .pinned)
        app.flush()
        #expect(widget.entry(forKey: "a") != nil)
        #expect(widget.isEntryPinned(forKey: "a"), "adopted unpinned")
    }

    @Test("two processes pinning at once stay within the budget together: the second marker is refused under the lock, reported, and its entry stays unpinned")
    func budgetHoldsAcrossProcesses() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let errors = Locked<[DiskCache.Error]>([])
        let app = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit)
        let widget = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit) { error in errors.withLock { $0.append(error) } }
        #expect(widget.entryCount == 0) // loaded before the app pins: it knows of no pin
        #expect(app.storePinned(diskTestBytes(Self.entrySize, seed: 1), metadata: bareMetadata, forKey: "app", limit: 1_500) == .pinned)
        app.flush()
        #expect(widget.storePinned(diskTestBytes(Self.entrySize, seed: 2), metadata: bareMetadata, forKey: "widget", limit: 1_500) == .pinned)
        widget.flush()
        #expect(!widget.isEntryPinned(forKey: "widget"))
        #expect(widget.entry(forKey: "widget")?.data == diskTestBytes(Self.entrySize, seed: 2), "refused as pinned, still stored")
        #expect(errors.withLock { $0.map(\.operation) } == [.pin])
        let underlying = errors.withLock { $0.first?.underlying } as? ImagePipeline.Error
        guard case .pinnedSizeLimitExceeded(let url, let size, let pinnedSize, let limit)? = underlying else {
            Issue.record("the refusal under the lock is the pipeline's typed error, not \(String(describing: underlying))")
            return
        }
        #expect(url.absoluteString == "widget")
        #expect(size >= Self.entrySize && pinnedSize >= Self.entrySize && limit == 1_500, "the files, headers included, against the budget")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.cache.appendingPathComponent("pinned").path).count == 1)
    }

    @Test("a pin whose write a newer store replaced before it ran is written after that store: the new version is pinned")
    func pinFollowsANewerStore() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let queue = DispatchQueue(label: "DiskCachePinningTests.newer")
        let cache = try Self.cache(in: dir, clock: DiskTestClock(), queue: queue)
        #expect(cache.entryCount == 0)
        queue.suspend()
        #expect(cache.storePinned(diskTestBytes(Self.entrySize, seed: 1), metadata: bareMetadata, forKey: "a", limit: Self.pinnedLimit) == .pinned)
        cache.store(diskTestBytes(Self.entrySize, seed: 2), metadata: bareMetadata, forKey: "a")
        queue.resume()
        cache.flush()
        #expect(cache.isEntryPinned(forKey: "a"))
        #expect(FileManager.default.fileExists(atPath: dir.cache.appendingPathComponent("pinned/\(entryFile(for: "a", in: dir.cache).lastPathComponent)").path))
        #expect(try DiskCache(directory: dir.cache).isEntryPinned(forKey: "a"), "a relaunch finds the pin")
    }

    @Test("an entry another process stored, which this index does not know yet, can be pinned")
    func pinsWhatTheIndexDoesNotKnow() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let app = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit)
        let widget = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit)
        #expect(widget.entryCount == 0)
        app.store(diskTestBytes(Self.entrySize), metadata: bareMetadata, forKey: "app")
        app.flush()
        #expect(widget.pinEntry(forKey: "app", limit: Self.pinnedLimit) == .pinned)
        widget.flush()
        #expect(widget.isEntryPinned(forKey: "app"))
    }

    @Test("a pin another process made, which this index has not learnt yet, is unpinned all the same: the marker goes, and the other process learns it")
    func unpinsWhatTheIndexHasNotLearnt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let app = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit)
        let widget = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit)
        #expect(widget.entryCount == 0)
        #expect(app.storePinned(diskTestBytes(Self.entrySize), metadata: bareMetadata, forKey: "a", limit: Self.pinnedLimit) == .pinned)
        app.flush()
        widget.unpinEntry(forKey: "a")
        widget.flush()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.cache.appendingPathComponent("pinned").path).isEmpty)
        app.store(diskTestBytes(10), metadata: bareMetadata, forKey: "b") // a locked operation: the app resyncs
        app.flush()
        #expect(!app.isEntryPinned(forKey: "a"))
    }

    @Test("removing a pinned entry removes it and its pin; removing everything removes every pin")
    func removalsEndPins() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let cache = try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit)
        for key in ["a", "b"] {
            #expect(cache.storePinned(diskTestBytes(Self.entrySize), metadata: bareMetadata, forKey: key, limit: Self.pinnedLimit) == .pinned)
        }
        cache.flush()
        let pins = dir.cache.appendingPathComponent("pinned").path
        #expect(try FileManager.default.contentsOfDirectory(atPath: pins).count == 2)
        cache.removeEntry(forKey: "a")
        cache.flush()
        #expect(!cache.containsEntry(forKey: "a"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: pins).count == 1)
        cache.removeAll()
        cache.flush()
        #expect(cache.entryCount == 0 && cache.pinnedSize == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: pins).isEmpty)
        // Stored again after the removal: not pinned, after a relaunch either (no marker is left).
        cache.store(diskTestBytes(Self.entrySize), metadata: bareMetadata, forKey: "a")
        cache.flush()
        #expect(!(try DiskCache(directory: dir.cache, sizeLimit: Self.sizeLimit).isEntryPinned(forKey: "a")))
    }
}
