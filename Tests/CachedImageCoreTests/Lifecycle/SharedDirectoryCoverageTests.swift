import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A cache in an App Group container, with an injected platform: every lock inside an assertion
/// whatever views ran, an expiry that releases the lock and returns at once, no lock when there
/// is nothing to do.
@Suite("DiskCache on a shared directory: assertions, expiry, locks only for changes")
struct SharedDirectoryCoverageTests {
    /// A directory laid out as an App Group container is on iOS.
    private static func appGroupDirectory(in dir: TemporaryDirectory) -> URL {
        dir.root.appendingPathComponent("Containers/Shared/AppGroup/\(UUID().uuidString)/Library/Caches/Images", isDirectory: true)
    }

    private func makeCache(_ directory: URL, gate: BackgroundExecutionGate) throws -> DiskCache {
        try DiskCache.forTesting(directory, gate: gate)
    }

    private func entryFiles(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { KeyHasher.isFileName($0) }
    }

    @Test("only an App Group container counts as shared")
    func sharedContainerPaths() {
        #expect(BackgroundCoverage.isSharedContainer("/private/var/mobile/Containers/Shared/AppGroup/0C3D/Library/Caches/Images"))
        #expect(BackgroundCoverage.isSharedContainer(
            "/Users/me/Library/Developer/CoreSimulator/Devices/5A1F/data/Containers/Shared/AppGroup/0C3D/Library/Caches/Images"
        ), "a simulator's")
        #expect(!BackgroundCoverage.isSharedContainer("/var/mobile/Containers/Data/Application/0C3D/Library/Caches/Images"))
        #expect(ProcessKind(mainBundleURL: URL(fileURLWithPath: "/x/Photos.app/PlugIns/Widget.appex")) == .appExtension)
        #expect(ProcessKind(mainBundleURL: URL(fileURLWithPath: "/x/Photos.app")) == .app)
        #expect(BackgroundCoverage.lifecycle(for: .app, applicationState: .active) == .active)
        #expect(BackgroundCoverage.lifecycle(for: .app, applicationState: nil) == .unknown)
        #expect(BackgroundCoverage.lifecycle(for: .appExtension, applicationState: nil) == .unknown)
    }

    @Test("a pipeline on an App Group directory, used with no view, takes every lock inside an assertion")
    func pipelineWithoutViewsIsCovered() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let provider = ScriptedAssertionProvider()
        var configuration = ImagePipeline.Configuration()
        configuration.diskCacheDirectory = Self.appGroupDirectory(in: dir)
        configuration.backgroundGate = BackgroundExecutionGate(defaultProvider: { provider })
        let pipeline = ImagePipeline(configuration: configuration)
        let cache = try #require(pipeline.diskCache)
        cache.directoryLock.observe { provider.log.append("\($0)") }

        try pipeline.storeImageData(ImageFixtures.png(width: 8, height: 8, seed: 1), forKey: "a")
        try pipeline.storeImageData(ImageFixtures.png(width: 8, height: 8, seed: 2), forKey: "b")
        pipeline.removeImage(forKey: "a")
        _ = try await pipeline.image(forKey: "b")
        cache.flush()
        pipeline.removeAllCachedImages()
        cache.flush()

        let log = provider.log.values
        #expect(log.filter { $0 == "locked" }.count >= 2, "\(log)")
        var assertions: Set<String> = []
        var isLocked = false
        for line in log {
            let parts = line.split(separator: " ")
            switch parts.first {
            case "began": assertions.insert(String(parts[1]))
            case "ended":
                #expect(!isLocked, "an assertion ended with the lock held: \(log)")
                assertions.remove(String(parts[1]))
            case "locked":
                #expect(!assertions.isEmpty, "a lock outside an assertion: \(log)")
                isLocked = true
            case "unlocked": isLocked = false
            default: Issue.record("unexpected \(line)")
            }
        }
        #expect(assertions.isEmpty && !isLocked, "nothing held while idle: \(log)")
    }

    @Test("an expiry while an operation holds the lock releases it and ends the assertion before it returns, not waiting for the operation, which starts nothing more; the rest waits for the next assertion")
    func expiryReleasesTheLockAtOnce() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let directory = Self.appGroupDirectory(in: dir)
        let provider = ScriptedAssertionProvider()
        let gate = BackgroundExecutionGate(defaultProvider: { provider })
        let cache = try makeCache(directory, gate: gate)
        for index in 0..<3 {
            cache.store(diskTestBytes(2_000, seed: UInt8(index + 1)), metadata: sampleMetadata, forKey: "k\(index)")
        }
        cache.flush()
        #expect(entryFiles(directory).count == 3)

        // The next operation that takes the lock stays there until released, as a long one would.
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let isHolding = Locked(true)
        cache.directoryLock.observe { event in
            provider.log.append("\(event)")
            if event == .locked, isHolding.withLock({ $0 }) {
                inside.signal()
                release.wait()
            }
        }
        let before = provider.log.values.count
        cache.removeAll()
        #expect(inside.wait(timeout: .now() + 60) == .success)
        let assertion = try #require(provider.granted.last)
        provider.isGranting = false

        let expiry = BackgroundThread { assertion.expire() }
        #expect(expiry.wait(), "the expiry returned while the operation still held its step")
        let number = assertion.number
        #expect(Array(provider.log.values[before...]) == ["began \(number)", "locked", "unlocked", "ended \(number)"])
        // Another process can take the lock now.
        let peer = open(directory.path, O_RDONLY | O_DIRECTORY)
        defer { close(peer) }
        #expect(flock(peer, LOCK_EX | LOCK_NB) == 0, "the lock was released before the assertion ended")
        flock(peer, LOCK_UN)

        isHolding.withLock { $0 = false }
        release.signal()
        cache.flush()
        #expect(gate.snapshot.lockedOperations == 0)
        // (flush() asks again for the deferred changes: denied, nothing starts.)
        #expect(Array(provider.log.values[before...]).filter { $0 != "denied" } == ["began \(number)", "locked", "unlocked", "ended \(number)"], "nothing started after the expiry")
        #expect(entryFiles(directory).count == 3, "the interrupted removal deleted nothing without its lock")
        #expect(cache.entry(forKey: "k0") == nil, "removed all the same, for this process")

        provider.isGranting = true
        cache.store(diskTestBytes(100), metadata: sampleMetadata, forKey: "later")
        cache.flush()
        #expect(entryFiles(directory).count == 1, "the next assertion finishes the removal, then the write")
        #expect(cache.entry(forKey: "later")?.data == diskTestBytes(100))
    }

    @Test("an operation interrupted between two steps starts no further step and defers the rest")
    func interruptedStepsAreDeferred() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let directory = Self.appGroupDirectory(in: dir)
        // An extension's: nothing resumes the deferred steps before a new assertion.
        let cache = try makeCache(directory, gate: BackgroundExecutionGate(provider: ScriptedAssertionProvider(), lifecycle: .unknown))
        for index in 0..<3 {
            cache.store(diskTestBytes(2_000, seed: UInt8(index + 1)), metadata: sampleMetadata, forKey: "k\(index)")
        }
        cache.flush()
        let paths = entryFiles(directory).map { (path: directory.path + "/" + $0, key: String?.none) }
        let deleted: Bool? = cache.queue.sync {
            cache.withDirectoryAccess(changing: true) { _ in
                cache.removeFiles(Array(paths.prefix(1)), operation: .remove)
                cache.directoryLock.interrupt() // as an expiry would, from its thread
                return cache.removeFiles(Array(paths.dropFirst()), operation: .remove)
            }
        }
        #expect(deleted == false)
        #expect(entryFiles(directory).count == 2, "one step before the interruption, none after")
        #expect(cache.withState { $0.deferredFileOperations.count } == 1)
    }

    @Test("deferred changes in an extension resume without another change: the snapshot timer and (at most once a second) a read ask for an assertion again")
    func deferredChangesResumeWithoutAnotherChange() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let provider = ScriptedAssertionProvider(granting: false)
        let clock = DiskTestClock()
        let cache = try DiskCache.forTesting(dir.cache, gate: BackgroundExecutionGate(provider: provider, lifecycle: .unknown), clock: clock)
        #expect(cache.entryCount == 0) // loaded
        cache.store(diskTestBytes(100, seed: 1), metadata: sampleMetadata, forKey: "a")
        cache.queue.sync {}
        #expect(entryFiles(dir.cache).isEmpty, "no assertion: the write waits in memory")

        provider.isGranting = true
        cache.queue.sync { cache.writeSnapshotIfNeeded() } // the timer
        cache.queue.sync {} // the resume it queued
        #expect(entryFiles(dir.cache).count == 1, "the snapshot timer did not resume the deferred write")

        provider.isGranting = false
        cache.store(diskTestBytes(100, seed: 2), metadata: sampleMetadata, forKey: "b")
        cache.queue.sync {}
        #expect(entryFiles(dir.cache).count == 1)
        provider.isGranting = true
        clock.advance(by: 2)
        _ = cache.entry(forKey: "a")
        cache.queue.sync {} // the read's request
        cache.queue.sync {} // the resume it queued
        #expect(entryFiles(dir.cache).count == 2, "a read did not resume the deferred write")
    }

    @Test("no lock when there is nothing to do: reads and the index load take none, nor does the snapshot timer when nothing is stale; another process's change is something to do")
    func noLockWithoutChanges() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let directory = dir.cache
        do {
            let writer = try makeCache(directory, gate: BackgroundExecutionGate())
            writer.store(diskTestBytes(2_000), metadata: sampleMetadata, forKey: "a")
            writer.flush()
        }
        let events = Recorder<String>()
        let cache = try makeCache(directory, gate: BackgroundExecutionGate())
        cache.directoryLock.observe { events.append("\($0)") }
        for _ in 0..<(DiskCache.readsBeforeLoadLimit + 1) {
            #expect(cache.entry(forKey: "a")?.data == diskTestBytes(2_000))
        }
        cache.queue.sync {} // the index load the reads asked for
        #expect(cache.withState { $0.isIndexLoaded })
        #expect(events.values.isEmpty, "reads and the index load took the lock")

        cache.flush() // the reads changed the use order: a snapshot to write
        let afterFlush = events.values
        cache.queue.sync { cache.writeSnapshotIfNeeded() } // the timer, when nothing is stale
        #expect(events.values == afterFlush, "the snapshot timer took the lock with nothing to write")

        // Another process changed the directory (its change count): the timer brings the index
        // up to date, under the lock.
        let peer = DiskCacheDirectoryLock(
            directoryPath: cache.directoryPath,
            changeCountPath: "\(cache.snapshotDirectoryPath)/\(DiskCacheIndexSnapshot.changeCountFileName)"
        )
        peer.writeChangeCount(peer.readChangeCount() &+ 1)
        cache.queue.sync { cache.writeSnapshotIfNeeded() }
        #expect(events.values == afterFlush + ["locked", "unlocked"])
    }

    @Test("storing, removing and clearing return without waiting for the index load or another process's lock; what was stored is readable at once")
    func changesNeverWait() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        var configuration = ImagePipeline.Configuration()
        configuration.diskCacheDirectory = dir.cache
        configuration.backgroundGate = BackgroundExecutionGate(defaultProvider: { nil })
        let pipeline = ImagePipeline(configuration: configuration)
        let cache = try #require(pipeline.diskCache)
        // The queue the index load runs on is held, and another process holds the lock.
        let held = DispatchSemaphore(value: 0)
        cache.queue.async { held.wait() }
        let peer = open(dir.cache.path, O_RDONLY | O_DIRECTORY)
        defer { close(peer) }
        #expect(flock(peer, LOCK_EX | LOCK_NB) == 0)
        defer { held.signal() }

        let image = ImageFixtures.png(width: 8, height: 8, seed: 3)
        let stored = BackgroundThread { _ = try? pipeline.storeImageData(image, forKey: "avatar") }
        #expect(stored.wait(), "storeImageData waited for the index load or the lock")
        #expect(cache.withState { !$0.isIndexLoaded }, "the index is still loading")
        #expect(pipeline.containsImage(forKey: "avatar"))
        let loaded = try await pipeline.image(forKey: "avatar")
        #expect(loaded.pixelSize == PixelSize(width: 8, height: 8))

        let removed = BackgroundThread { pipeline.removeImage(forKey: "avatar") }
        #expect(removed.wait())
        #expect(!pipeline.containsImage(forKey: "avatar"))
        try pipeline.storeImageData(image, forKey: "kept")
        let cleared = BackgroundThread { pipeline.removeAllCachedImages() }
        #expect(cleared.wait(), "removeAll waited for the index load or the lock")
        await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(forKey: "kept") }
        try pipeline.storeImageData(image, forKey: "after")
        #expect(cache.withState { !$0.isIndexLoaded })

        // Released: the changes land, in order.
        held.signal()
        flock(peer, LOCK_UN)
        cache.flush()
        #expect(cache.entryCount == 1)
        #expect(cache.entry(forKey: ImagePipeline.customCacheKey("after"))?.data == image)
        let reopened = try makeCache(dir.cache, gate: BackgroundExecutionGate())
        #expect(reopened.entry(forKey: ImagePipeline.customCacheKey("after"))?.data == image)
        #expect(reopened.entry(forKey: ImagePipeline.customCacheKey("kept")) == nil)
        #expect(reopened.entry(forKey: ImagePipeline.customCacheKey("avatar")) == nil)
    }
}
