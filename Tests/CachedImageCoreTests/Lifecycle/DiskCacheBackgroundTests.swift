import Foundation
import Testing
@testable import CachedImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The disk cache under the background rules: what is on disk, what is served, and who holds
/// the directory's lock, as the process goes to the background and back.
@Suite("DiskCache in the background")
struct DiskCacheBackgroundTests {
    private func makeCache(in dir: TemporaryDirectory, gate: BackgroundExecutionGate) throws -> DiskCache {
        try DiskCache.forTesting(dir.cache, gate: gate)
    }

    private func entryFiles(_ dir: TemporaryDirectory) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.cache.path)) ?? []
        return names.filter { KeyHasher.isFileName($0) }
    }

    @Test("a cache that goes away takes its resume handler with it: opening and closing caches keeps none of them")
    func closedCachesLeaveNoResumeHandler() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let gate = BackgroundExecutionGate()
        let kept = try makeCache(in: dir, gate: gate)
        for _ in 0..<50 {
            _ = try makeCache(in: dir, gate: gate)
        }
        #expect(gate.resumeHandlerCount == 1, "only the open cache's handler")
        withExtendedLifetime(kept) {}
    }

    @Test("in the background with no assertion to be had, a write takes no lock and stays in memory (served from there); it lands when the app is active again")
    func writeDeferredWithoutAssertion() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let provider = ScriptedAssertionProvider(granting: false)
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .background)
        let cache = try makeCache(in: dir, gate: gate)
        let data = diskTestBytes(5_000)
        cache.store(data, metadata: sampleMetadata, forKey: "a")
        cache.flush()

        #expect(entryFiles(dir).isEmpty, "written in the background without an assertion")
        #expect(cache.entry(forKey: "a")?.data == data, "a deferred write is served from memory")
        #expect(provider.log.values.allSatisfy { $0 == "denied" } && !provider.log.values.isEmpty)
        #expect(gate.snapshot.lockedOperations == 0)

        gate.didBecomeActive()
        cache.flush()
        #expect(entryFiles(dir).count == 1)
        let reader = try makeCache(in: dir, gate: BackgroundExecutionGate())
        #expect(reader.entry(forKey: "a")?.data == data, "on disk for another process")
    }

    @Test("each locked operation in the background runs inside an assertion, ended when it is done")
    func writeUnderAssertion() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let provider = ScriptedAssertionProvider()
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .unknown)
        let cache = try makeCache(in: dir, gate: gate)
        cache.store(diskTestBytes(5_000), metadata: sampleMetadata, forKey: "a")
        cache.flush()
        #expect(entryFiles(dir).count == 1)
        let log = provider.log.values
        #expect(!log.isEmpty)
        #expect(log.count % 2 == 0)
        for (index, line) in log.enumerated() {
            #expect(line == (index % 2 == 0 ? "began \(index / 2 + 1)" : "ended \(index / 2 + 1)"), "\(log)")
        }
        #expect(gate.snapshot.assertion == nil, "no assertion held while idle")
    }

    @Test("a write waiting for the lock when its assertion expires gives up without the lock; the expiry returns at once; it is written when the app is active again")
    func writeInFlightAtExpiry() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let provider = ScriptedAssertionProvider()
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .active)
        let cache = try makeCache(in: dir, gate: gate)
        cache.flush() // the index is loaded in the foreground
        gate.didEnterBackground()

        // Another process holds the directory's lock: the write waits for it.
        let peer = open(dir.cache.path, O_RDONLY | O_DIRECTORY)
        #expect(peer >= 0)
        defer { close(peer) }
        #expect(flock(peer, LOCK_EX | LOCK_NB) == 0)

        let data = diskTestBytes(5_000)
        cache.store(data, metadata: sampleMetadata, forKey: "a")
        #expect(waitUntil { !provider.granted.isEmpty }, "the write asks for an assertion before the lock")
        provider.isGranting = false
        let expiry = BackgroundThread { provider.granted[0].expire() }
        #expect(expiry.wait(), "the expiry returns")
        #expect(provider.log.values == ["began 1", "ended 1"])
        #expect(waitUntil { gate.snapshot.lockedOperations == 0 }, "the write gives up")
        #expect(gate.snapshot.interruptedOperations == 1)

        cache.flush()
        #expect(entryFiles(dir).isEmpty)
        #expect(cache.entry(forKey: "a")?.data == data, "still served from memory")

        flock(peer, LOCK_UN)
        gate.didBecomeActive()
        cache.flush()
        #expect(entryFiles(dir).count == 1, "written once active again")
        #expect(flock(peer, LOCK_EX | LOCK_NB) == 0, "and the lock is free again")
        flock(peer, LOCK_UN)
    }
}
