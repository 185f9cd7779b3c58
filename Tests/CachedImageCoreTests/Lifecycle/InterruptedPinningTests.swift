import Foundation
import Testing
@testable import CachedImageCore

/// Pins and the deletions around them, interrupted (an extension's assertion expires) and
/// resumed later: what was deferred still respects the pins of the directory as it is then.
@Suite("DiskCache: pinning, interrupted and resumed")
struct InterruptedPinningTests {
    /// A process that can be suspended: in the background, every locked operation inside an
    /// assertion the test grants and expires.
    private func makeWidgetCache(_ dir: TemporaryDirectory, gate: BackgroundExecutionGate, sizeLimit: Int = 10_000_000) throws -> DiskCache {
        try DiskCache(
            directory: dir.cache.standardizedFileURL, sizeLimit: sizeLimit, clock: DiskTestClock(), errorHandler: nil,
            nameForKey: { KeyHasher.name(for: $0) }, backgroundGate: gate, lockWaitLimit: 60
        )
    }

    /// Expires the running assertion (the provider grants no other) from a thread of its own.
    private func expire(_ provider: ScriptedAssertionProvider) {
        provider.isGranting = false
        guard let assertion = provider.granted.last else { return }
        _ = BackgroundThread { assertion.expire() }.wait()
    }

    private func exists(_ key: String, in dir: TemporaryDirectory) -> Bool {
        FileManager.default.fileExists(atPath: entryFile(for: key, in: dir.cache).path)
    }

    private func markers(_ dir: TemporaryDirectory) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: dir.cache.appendingPathComponent("pinned").path)) ?? []
    }

    @Test("an eviction interrupted between two deletions, resumed after another process pinned the next entry, leaves that entry")
    func resumedEvictionRespectsANewPin() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let provider = ScriptedAssertionProvider()
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .active)
        let widget = try makeWidgetCache(dir, gate: gate, sizeLimit: 2_500)
        for key in ["a", "b"] {
            widget.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: key)
        }
        widget.flush()
        let app = try DiskCache.forTesting(dir.cache)
        #expect(app.entryCount == 2)
        gate.didEnterBackground()

        // The widget's eviction of a and b stops after a's deletion: its assertion expires, and
        // the app pins b meanwhile (the lock is free).
        let fired = Locked(false)
        let first = entryFile(for: "a", in: dir.cache).path
        widget.directoryLock.observeCommits { [self] in
            guard !FileManager.default.fileExists(atPath: first), !fired.withLock({ $0 }) else { return }
            fired.withLock { $0 = true }
            expire(provider)
            _ = app.pinEntry(forKey: "b", limit: 10_000)
            app.flush()
        }
        widget.store(diskTestBytes(2_000), metadata: bareMetadata, forKey: "c")
        widget.queue.sync {}
        widget.directoryLock.observeCommits(nil)
        #expect(fired.withLock { $0 })
        #expect(markers(dir).count == 1, "the app pinned b")

        provider.isGranting = true
        gate.didBecomeActive()
        widget.flush()
        #expect(exists("b", in: dir), "the resumed eviction deleted an entry pinned since")
        #expect(!exists("a", in: dir) && exists("c", in: dir))
        #expect(app.entry(forKey: "b") != nil)
    }

    @Test("removing everything, interrupted among the pins' markers, deletes the entries too once resumed")
    func resumedRemoveAllDeletesTheEntries() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let provider = ScriptedAssertionProvider()
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .active)
        let widget = try makeWidgetCache(dir, gate: gate)
        for key in ["a", "b"] {
            #expect(widget.storePinned(diskTestBytes(1_000), metadata: bareMetadata, forKey: key, limit: 10_000) == .pinned)
        }
        widget.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: "c")
        widget.flush()
        #expect(markers(dir).count == 2)
        gate.didEnterBackground()

        // The assertion expires once the first marker is gone.
        let fired = Locked(false)
        widget.directoryLock.observeCommits { [self] in
            guard markers(dir).count == 1, !fired.withLock({ $0 }) else { return }
            fired.withLock { $0 = true }
            expire(provider)
        }
        widget.removeAll()
        widget.queue.sync {}
        widget.directoryLock.observeCommits(nil)
        #expect(fired.withLock { $0 })
        #expect(markers(dir).count == 1, "interrupted after one marker")

        provider.isGranting = true
        gate.didBecomeActive()
        widget.flush()
        #expect(markers(dir).isEmpty)
        #expect(!exists("a", in: dir) && !exists("b", in: dir) && !exists("c", in: dir), "the entries outlived removeAll")
    }

    @Test("a pin whose assertion expires as its operation begins is written once resumed")
    func pinInterruptedBeforeItStartsIsWrittenLater() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let provider = ScriptedAssertionProvider()
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .active)
        let widget = try makeWidgetCache(dir, gate: gate)
        widget.store(diskTestBytes(1_000), metadata: bareMetadata, forKey: "a")
        widget.flush()
        let snapshot = dir.cache.appendingPathComponent("index/snapshot").path
        #expect(FileManager.default.fileExists(atPath: snapshot))
        gate.didEnterBackground()

        // The pin's operation first deletes the snapshot: the assertion expires there.
        let fired = Locked(false)
        widget.directoryLock.observeCommits { [self] in
            guard FileManager.default.fileExists(atPath: snapshot), !fired.withLock({ $0 }) else { return }
            fired.withLock { $0 = true }
            expire(provider)
        }
        #expect(widget.pinEntry(forKey: "a", limit: 10_000) == .pinned)
        widget.queue.sync {}
        widget.directoryLock.observeCommits(nil)
        #expect(fired.withLock { $0 })
        #expect(markers(dir).isEmpty)

        provider.isGranting = true
        gate.didBecomeActive()
        widget.flush()
        #expect(markers(dir).count == 1, "the pin was lost")
        #expect(try DiskCache.forTesting(dir.cache).isEntryPinned(forKey: "a"))
    }
}
