import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// One disk cache per directory: pipelines in one process share it; another process is kept out.
@Suite("Reliability: one disk cache per directory")
struct SharedDirectoryTests {
    @Test("two pipelines on one directory share one disk cache: one index, one size limit, no second download")
    func pipelinesShareTheDirectory() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png", headers: ["Cache-Control": "max-age=600"])
            let first = fixture.makePipeline { $0.diskCacheSizeLimit = 1_000_000 }
            let second = fixture.makePipeline { $0.diskCacheSizeLimit = 5 }
            #expect(first.diskCache === second.diskCache)
            #expect(second.diskCache?.sizeLimit == 1_000_000, "the first opener's limit applies")
            _ = try await first.image(for: fixture.url("/a.png"))
            #expect(try await second.image(for: fixture.url("/a.png")).source == .disk)
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test("a cache reopened while this process spawns children opens: a child that has not reached exec yet does not count as another process")
    func reopensWhileSpawningChildren() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("CachedImageSpawn-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Each child is forked while the directory's descriptor is open, and holds a copy of it
        // (and so the lock) until it reaches exec. Without retrying, about 1 open in 100 failed.
        let spawned = Locked(0)
        let stop = Locked(false)
        let spawner = Thread {
            while !stop.withLock({ $0 }) {
                let child = Process()
                child.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                child.arguments = ["true"]
                guard (try? child.run()) != nil else { break }
                child.waitUntilExit()
                spawned.withLock { $0 += 1 }
            }
        }
        spawner.start()
        defer { stop.withLock { $0 = true } }
        var opens = 0
        var failures: [String] = []
        let deadline = Date().addingTimeInterval(30)
        // Each open releases the previous cache (and its lock) first.
        while spawned.withLock({ $0 }) < 100 || opens < 2_000, Date() < deadline {
            do {
                _ = try DiskCache.shared(directory: directory)
            } catch {
                failures.append("\(error)")
            }
            opens += 1
        }
        #expect(spawned.withLock { $0 } >= 100, "the children must overlap the opens for this test to mean anything")
        let failed = failures.count
        #expect(failed == 0, "\(failed) of \(opens) opens failed: \(failures.first ?? "")")
    }

    @Test("another process holding the directory keeps this one out with a typed error; the pipeline runs without a disk cache")
    func anotherProcessIsKeptOut() async throws {
        let writer = try #require(CrashSafetyTests.writerURL(), "cachedimage-crash-writer was not built next to the tests")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("CachedImageShared-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = Process()
        process.executableURL = writer
        process.arguments = [directory.path, "0", String(10_000_000)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        #expect(String(decoding: output.fileHandleForReading.readData(ofLength: 6), as: UTF8.self) == "ready\n")

        #expect {
            _ = try DiskCache(directory: directory)
        } throws: { error in
            (error as? DiskCache.Error)?.operation == .open
        }
        var configuration = ImagePipeline.Configuration()
        configuration.diskCacheDirectory = directory
        let pipeline = ImagePipeline(configuration: configuration)
        #expect(pipeline.diskCache == nil)
        #expect(pipeline.diskCacheOpenError?.operation == .open)
        #expect {
            try pipeline.storeImageData(ImageFixtures.png(width: 8, height: 8, seed: 1), forKey: "mine")
        } throws: { error in
            guard case .diskCacheUnavailable(_, let openError)? = error as? ImagePipeline.Error else { return false }
            return openError?.operation == .open
        }

        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        // The lock goes with the process, however it ended. (Flushed, so that its index load
        // is over before the directory is removed, rather than recreating it afterwards.)
        #expect(throws: Never.self) { try DiskCache(directory: directory).flush() }
    }
}
