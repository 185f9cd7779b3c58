import Foundation
import Testing
@testable import CachedImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An operation whose lock was released under it (its assertion expired) changes nothing more:
/// every rename and unlink is a commit, checked again atomically with the release; a process
/// suspended mid-write does not rename old bytes over another process's newer entry, its
/// temporary file is not taken for a killed writer's, and a failed rename deletes nothing.
@Suite("DiskCache: an interrupted operation commits nothing")
struct InterruptedCommitTests {
    /// A process that can be suspended (an extension: every locked operation inside an
    /// assertion), the test granting and expiring them.
    private func makeWidgetCache(_ directory: URL, provider: ScriptedAssertionProvider) throws -> DiskCache {
        try DiskCache.forTesting(directory, gate: BackgroundExecutionGate(provider: provider, lifecycle: .unknown))
    }

    /// Another process on the same directory (an app in the foreground).
    private func makePeerCache(_ directory: URL) throws -> DiskCache {
        try DiskCache.forTesting(directory)
    }

    private func temporaryFiles(_ directory: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("tmp").path)) ?? []
    }

    private func bytesOnDisk(_ key: String, in directory: URL) -> Data? {
        guard case .hit(let body, _, _) = DiskCacheFileIO.readEntry(
            atPath: entryFile(for: key, in: directory).path, key: key, maximumSize: 10_000_000
        ) else { return nil }
        return body
    }

    @Test("a write whose assertion expires mid-write renames nothing when it runs on: the peer's newer entry survives, its temporary file too until then")
    func interruptedWriteKeepsPeersEntry() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        try FileManager.default.createDirectory(at: dir.cache, withIntermediateDirectories: true)
        let provider = ScriptedAssertionProvider()
        let widget = try makeWidgetCache(dir.cache, provider: provider)

        // The widget's write stops inside its step, its temporary file written, before the rename.
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let directory = dir.cache
        widget.directoryLock.observeCommits { [self] in
            guard !temporaryFiles(directory).isEmpty else { return } // the snapshot's deletion
            inside.signal()
            release.wait()
        }
        widget.store(diskTestBytes(3_000, seed: 1), metadata: sampleMetadata, forKey: "k")
        #expect(inside.wait(timeout: .now() + 60) == .success)
        let assertion = try #require(provider.granted.last)
        provider.isGranting = false
        let expiry = BackgroundThread { assertion.expire() }
        #expect(expiry.wait(), "the expiry returned")

        // The app rewrites the key meanwhile; opening, it finds the widget's temporary file.
        let peer = try makePeerCache(dir.cache)
        peer.store(diskTestBytes(100, seed: 9), metadata: sampleMetadata, forKey: "other")
        peer.store(diskTestBytes(2_000, seed: 2), metadata: sampleMetadata, forKey: "k")
        peer.flush()
        #expect(bytesOnDisk("k", in: dir.cache) == diskTestBytes(2_000, seed: 2))
        #expect(temporaryFiles(dir.cache).count == 1, "the suspended writer's temporary file was taken for a leftover")

        // The widget runs again: its step goes on, with the lock gone.
        widget.directoryLock.observeCommits(nil)
        release.signal()
        widget.queue.sync {}
        #expect(bytesOnDisk("k", in: dir.cache) == diskTestBytes(2_000, seed: 2), "old bytes renamed over the peer's newer entry")
        #expect(temporaryFiles(dir.cache).isEmpty, "the interrupted write left its temporary file")
        #expect(widget.withState { $0.deferredFileOperations.count } == 1, "the write waits for the next assertion")
    }

    @Test("a write whose rename fails (its temporary file deleted under it) leaves whatever is at the entry's path")
    func failedRenameDeletesNothing() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let peer = try makePeerCache(dir.cache)
        peer.store(diskTestBytes(2_000, seed: 2), metadata: sampleMetadata, forKey: "k")
        peer.flush()

        let errors = ErrorLog()
        let cache = try DiskCache.forTesting(dir.cache, errorHandler: errors.handler)
        let directory = dir.cache
        cache.directoryLock.observeCommits { [self] in
            for name in temporaryFiles(directory) {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent("tmp/\(name)"))
            }
        }
        cache.store(diskTestBytes(3_000, seed: 1), metadata: sampleMetadata, forKey: "k")
        cache.flush()
        #expect(errors.all.count == 1, "the failed rename is reported")
        #expect(bytesOnDisk("k", in: dir.cache) == diskTestBytes(2_000, seed: 2), "the entry at the final path was deleted")
    }

    @Test("only leftovers go: a temporary file of a running process stays, a dead process's and a stray name go")
    func onlyLeftoverTemporaryFilesAreDeleted() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let tmp = dir.cache.appendingPathComponent("tmp", isDirectory: true)
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        let name = KeyHasher.fileName(for: "k")
        // No process has this number (beyond every platform's maximum).
        let running = "\(name).\(getpid()).5.tmp", dead = "\(name).99999999.5.tmp", stray = "\(name).7.tmp"
        for file in [running, dead, stray] {
            try diskTestBytes(100).write(to: tmp.appendingPathComponent(file))
        }
        let cache = try makePeerCache(dir.cache)
        cache.flush() // the load queues their deletion, under the lock
        #expect(temporaryFiles(dir.cache) == [running])

        // Older than the limit: left over whoever wrote it.
        let file = DiskCacheFileIO.ListedFile(name: running, size: 100, modificationDate: Date(), statusChangeDate: Date())
        #expect(!DiskCache.isLeftover(file, now: Date()))
        #expect(DiskCache.isLeftover(file, now: Date().addingTimeInterval(DiskCache.leftoverTemporaryFileAge + 1)))
    }
}
