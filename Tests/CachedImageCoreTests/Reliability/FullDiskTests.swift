import Foundation
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

/// A real full disk and a real read-only file system: a tiny tmpfs mounted under the test's
/// directory. Needs Linux and the right to mount (root in most containers and CI runners); the
/// suite is disabled elsewhere. Both tests assert that nothing throws to the caller, images keep
/// coming from memory and the network, and each failed write is reported once through events.
@Suite("Reliability: a full or read-only disk", .enabled(if: TmpfsMount.isAvailable))
struct FullDiskTests {
    /// Starts collecting `diskCacheFailed` events of `pipeline`.
    private static func collectDiskErrors(of pipeline: ImagePipeline) -> (Recorder<DiskCache.Error>, Task<Void, Never>) {
        let recorder = Recorder<DiskCache.Error>()
        let events = pipeline.events()
        let task = Task {
            for await event in events {
                if case .diskCacheFailed(let error) = event { recorder.append(error) }
            }
        }
        return (recorder, task)
    }

    @Test("a disk that fills up: every image still loads, each failed write is reported once")
    @available(macOS 14.0, *)
    func diskFull() async throws {
        let fixture = try await PipelineFixture.start()
        let mount = try TmpfsMount(at: fixture.directory.appendingPathComponent("volume"), size: "64k")
        defer { mount.unmount() }
        // In a scope of its own: the pipeline (and its disk cache's open directory) is gone
        // before the unmount, which would fail with EBUSY and leave the mount point behind.
        do {
            var bodies: [String: Data] = [:]
            for index in 0..<20 {
                bodies["/\(index).png"] = fixture.servePNG("/\(index).png", width: 64, height: 64, seed: UInt64(index + 1))
            }
            let pipeline = fixture.makePipeline { $0.diskCacheDirectory = mount.directory.appendingPathComponent("cache") }
            let (errors, listener) = Self.collectDiskErrors(of: pipeline)

            for (path, body) in bodies {
                let response = try await pipeline.image(for: fixture.url(path))
                #expect(response.source == .network)
                #expect(response.image.data == body)
            }
            let diskCache = try #require(pipeline.diskCache)
            diskCache.flush()
            let stored = bodies.keys.filter { diskCache.entry(forKey: fixture.url($0).absoluteString) != nil }
            // 20 images of about 12 KB cannot fit in 64 KB: some writes failed, each reported once.
            #expect(!stored.isEmpty)
            #expect(stored.count < bodies.count)
            let failedWrites = bodies.count - stored.count
            #expect(await eventually { errors.values.count >= failedWrites })
            #expect(errors.values.count == failedWrites)
            #expect(errors.values.allSatisfy { $0.operation == .write && ($0.underlying as? POSIXError)?.code == .ENOSPC })
            // What did land is exact, and the accounting matches the files.
            for path in stored {
                #expect(diskCache.entry(forKey: fixture.url(path).absoluteString)?.data == bodies[path])
            }
            #expect(diskCache.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: diskCache.directory))
            // Memory still serves every image.
            for (path, body) in bodies {
                #expect(pipeline.memoryCachedImage(for: ImageRequest(url: fixture.url(path)))?.data == body)
            }
            listener.cancel()
        }
        mount.unmount()
        await fixture.tearDown()
    }

    @Test("a read-only disk: cached images are served, new ones load from the network, writes are reported")
    @available(macOS 14.0, *)
    func readOnlyDisk() async throws {
        let fixture = try await PipelineFixture.start()
        let mount = try TmpfsMount(at: fixture.directory.appendingPathComponent("volume"), size: "1m")
        defer { mount.unmount() }
        let cacheDirectory = mount.directory.appendingPathComponent("cache")
        let old = fixture.servePNG("/old.png", seed: 1, headers: ["Cache-Control": "max-age=3600"])
        let new = fixture.servePNG("/new.png", seed: 2)
        // The pipelines live in scopes of their own: gone before the unmount (see `diskFull`).
        do {
            let first = fixture.makePipeline { $0.diskCacheDirectory = cacheDirectory }
            _ = try await first.image(for: fixture.url("/old.png"))
            first.diskCache?.flush()
        }
        try mount.remountReadOnly()

        do {
            let pipeline = fixture.makePipeline { $0.diskCacheDirectory = cacheDirectory }
            let (errors, listener) = Self.collectDiskErrors(of: pipeline)
            let cached = try await pipeline.image(for: fixture.url("/old.png"))
            #expect(cached.source == .disk)
            #expect(cached.image.data == old)
            let fresh = try await pipeline.image(for: fixture.url("/new.png"))
            #expect(fresh.source == .network)
            #expect(fresh.image.data == new)
            pipeline.diskCache?.flush()
            #expect(await eventually { !errors.values.isEmpty })
            #expect(errors.values.count == 1)
            #expect(errors.values.first?.operation == .write)
            #expect((errors.values.first?.underlying as? POSIXError)?.code == .EROFS)
            #expect(pipeline.diskCache?.entry(forKey: fixture.url("/new.png").absoluteString) == nil)
            #expect(pipeline.memoryCachedImage(for: ImageRequest(url: fixture.url("/new.png")))?.data == new)
            listener.cancel()
        }
        mount.unmount()
        await fixture.tearDown()
    }
}

/// A tmpfs mounted for one test, through `/usr/bin/mount`.
struct TmpfsMount {
    let directory: URL

    /// Whether this process can mount a tmpfs (probed once by mounting and unmounting one).
    static let isAvailable: Bool = {
        #if os(Linux)
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("CachedImageMountProbe-\(UUID().uuidString)")
        guard let mount = try? TmpfsMount(at: probe, size: "16k") else {
            try? FileManager.default.removeItem(at: probe)
            return false
        }
        mount.unmount()
        try? FileManager.default.removeItem(at: probe)
        return true
        #else
        return false
        #endif
    }()

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(at directory: URL, size: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", directory.path])
    }

    func remountReadOnly() throws {
        try Self.run("/usr/bin/mount", ["-o", "remount,ro", directory.path])
    }

    func unmount() {
        try? Self.run("/usr/bin/umount", [directory.path])
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: tool) else { throw Failure(description: "\(tool) not found") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
    }
}
