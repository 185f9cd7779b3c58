import Foundation
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

/// Damage done to the cache directory behind a running pipeline's back must turn into misses
/// and re-downloads, never into a wrong image or a crash.
@Suite("Reliability: corrupted, truncated or deleted cache files under a running pipeline")
struct CorruptionTests {
    enum Damage: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case flipBodyByte, flipHeaderByte, truncate, emptyFile, replaceWithGarbage, swapWithAnotherEntry, deleteFile, deleteDirectory

        var testDescription: String { rawValue }
    }

    static let pathCount = 8

    /// Damages the entry file of `key` (or the whole directory) in `directory`.
    static func apply(_ damage: Damage, key: String, otherKey: String, in directory: URL) throws {
        let file = directory.appendingPathComponent(KeyHasher.fileName(for: key))
        switch damage {
        case .flipBodyByte, .flipHeaderByte:
            var bytes = [UInt8](try Data(contentsOf: file))
            guard !bytes.isEmpty else { return }  // already emptied by earlier damage
            let index = damage == .flipBodyByte ? max(0, bytes.count - 30) : min(12, bytes.count - 1)
            bytes[index] ^= 0x5A
            try Data(bytes).write(to: file)
        case .truncate:
            let bytes = try Data(contentsOf: file)
            try bytes.prefix(bytes.count * 2 / 3).write(to: file)
        case .emptyFile:
            try Data().write(to: file)
        case .replaceWithGarbage:
            let size = try Data(contentsOf: file).count
            var garbage = SeededGarbage(seed: 99)
            try garbage.bytes(size).write(to: file)
        case .swapWithAnotherEntry:
            // The file now holds a valid entry, but for a different key.
            let other = directory.appendingPathComponent(KeyHasher.fileName(for: otherKey))
            try FileManager.default.removeItem(at: file)
            try FileManager.default.copyItem(at: other, to: file)
        case .deleteFile:
            try FileManager.default.removeItem(at: file)
        case .deleteDirectory:
            try FileManager.default.removeItem(at: directory)
        }
    }

    @Test("damage", arguments: Damage.allCases)
    @available(macOS 14.0, *)
    func damagedEntryIsAMissAndIsRedownloaded(_ damage: Damage) async throws {
        let fixture = try await PipelineFixture.start()
        var bodies: [String: Data] = [:]
        for index in 0..<Self.pathCount {
            bodies["/\(index).png"] = fixture.servePNG("/\(index).png", seed: UInt64(index + 10), headers: ["Cache-Control": "max-age=3600"])
        }
        // No memory cache: every request below goes to the disk cache.
        let pipeline = fixture.makePipeline { $0.memoryCacheCostLimit = 0 }
        for path in bodies.keys {
            _ = try await pipeline.image(for: fixture.url(path))
        }
        pipeline.diskCache?.flush()
        fixture.server.resetCounters()

        let damagedKey = fixture.url("/0.png").absoluteString
        try Self.apply(damage, key: damagedKey, otherKey: fixture.url("/1.png").absoluteString, in: fixture.directory)

        for (path, body) in bodies.sorted(by: { $0.key < $1.key }) {
            let response = try await pipeline.image(for: fixture.url(path))
            #expect(response.image.data == body, "wrong image for \(path)")
            let damaged = path == "/0.png" || damage == .deleteDirectory
            #expect(response.source == (damaged ? .network : .disk), "\(path)")
        }
        #expect(fixture.server.requestCount(for: "/0.png") == 1)
        #expect(fixture.server.totalRequestCount == (damage == .deleteDirectory ? Self.pathCount : 1))

        // The re-downloaded entries are on disk again, exact.
        pipeline.diskCache?.flush()
        for (path, body) in bodies {
            #expect(pipeline.diskCache?.entry(forKey: fixture.url(path).absoluteString)?.data == body, "\(path)")
        }
        #expect(pipeline.diskCache?.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: fixture.directory))
        await fixture.tearDown()
    }

    @Test("random damage while 8 tasks load images: every image is exact, the disk ends consistent")
    @available(macOS 14.0, *)
    func damageWhileLoading() async throws {
        let fixture = try await PipelineFixture.start()
        var bodies: [String: Data] = [:]
        for index in 0..<20 {
            bodies["/\(index).png"] = fixture.servePNG("/\(index).png", seed: UInt64(index + 100), headers: ["Cache-Control": "max-age=3600"])
        }
        let pipeline = fixture.makePipeline { $0.memoryCacheCostLimit = 0 }
        let paths = bodies.keys.sorted()
        let expected = bodies
        let directory = fixture.directory
        let server = fixture.server
        let done = Locked(false)

        let vandal = Task {
            var random = SystemRandomNumberGenerator()
            var acts = 0
            while !done.withLock({ $0 }) {
                let damage = Damage.allCases.randomElement(using: &random)!
                // Directory deletion is rarer, so that the cache holds something to damage.
                if damage == .deleteDirectory, Int.random(in: 0..<10, using: &random) != 0 { continue }
                let key = server.url(paths.randomElement(using: &random)!).absoluteString
                let other = server.url(paths.randomElement(using: &random)!).absoluteString
                if (try? Self.apply(damage, key: key, otherKey: other, in: directory)) != nil { acts += 1 }
                await Task.yield()
            }
            return acts
        }
        let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<60 {
                        let path = paths[(worker * 7 + round * 3) % paths.count]
                        let response = try await pipeline.image(for: server.url(path))
                        if response.image.data != expected[path] { wrong += 1 }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        done.withLock { $0 = true }
        let acts = await vandal.value
        #expect(wrong == 0)
        #expect(acts > 0)

        // Afterwards every readable entry is exact and the accounting matches the files.
        pipeline.diskCache?.flush()
        for path in paths {
            if let entry = pipeline.diskCache?.entry(forKey: server.url(path).absoluteString) {
                #expect(entry.data == expected[path], "\(path)")
            }
        }
        pipeline.diskCache?.flush()
        // A cache opened anew on the directory (what a relaunch does; in this process the
        // pipelines share one instance) finds accounting that matches the files.
        let reopened = try DiskCache(directory: directory)
        reopened.flush()
        #expect(reopened.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: directory))
        let relaunched = fixture.makePipeline { $0.memoryCacheCostLimit = 0 }
        for path in paths {
            #expect(try await relaunched.image(for: server.url(path)).image.data == expected[path])
        }
        print("corruption: \(acts) acts of damage during \(8 * 60) loads, \(server.totalRequestCount) network requests")
        await fixture.tearDown()
    }
}
