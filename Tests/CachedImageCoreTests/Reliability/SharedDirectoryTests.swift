import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One disk cache per directory in a process: pipelines share it. Several processes share the
/// directory itself: each runs its own cache, coordinated through short locks and the
/// directory's change count, never a lock held while idle.
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

    @Test("an open, idle cache holds no lock on its directory: nothing is locked while a process may be suspended")
    func idleCacheHoldsNoLock() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("CachedImageIdle-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try DiskCache(directory: directory)
        cache.store(ImageFixtures.png(width: 8, height: 8, seed: 1), metadata: CachedResponseMetadata(storedAt: Date()), forKey: "a")
        cache.flush()
        // Another open file description, as another process would have: the lock is free.
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0, "the cache keeps its directory locked while idle")
        flock(descriptor, LOCK_UN)
        withExtendedLifetime(cache) {}
    }

    @Test(
        "a relaunch that only reads keeps no descriptor of the directory open; the first file operation opens it",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd"), "counts descriptors in /proc/self/fd")
    )
    func readsOpenNoDirectoryDescriptor() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("CachedImageLazyOpen-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = ImageFixtures.png(width: 8, height: 8, seed: 1)
        do {
            let first = try DiskCache.shared(directory: directory)
            first.store(image, metadata: CachedResponseMetadata(storedAt: Date()), forKey: "a")
            first.flush()
        }
        let path = directory.resolvingSymlinksInPath().path
        #expect(Self.descriptors(of: path) == 0, "the first cache is gone, and its descriptor with it")

        let cache = try DiskCache.shared(directory: directory)
        #expect(cache.entry(forKey: "a")?.data == image)
        #expect(Self.descriptors(of: path) == 0, "opening and reading opened the directory")
        cache.store(image, metadata: CachedResponseMetadata(storedAt: Date()), forKey: "b")
        cache.flush()
        #expect(Self.descriptors(of: path) == 1, "the write took the directory's lock through one descriptor, kept open")
        #expect(cache.entry(forKey: "b")?.data == image)
    }

    @Test(
        "a directory deleted, or renamed aside, and made again is locked anew: the lock's descriptor follows the path",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd"), "counts descriptors in /proc/self/fd"),
        arguments: [false, true]
    )
    func lockFollowsRecreatedDirectory(renamingAside: Bool) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("CachedImageRecreated-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("Images", isDirectory: true)
        let aside = root.appendingPathComponent("Images.old", isDirectory: true)
        let image = ImageFixtures.png(width: 8, height: 8, seed: 2)
        let cache = try DiskCache(directory: directory)
        cache.store(image, metadata: CachedResponseMetadata(storedAt: Date()), forKey: "a")
        cache.flush()
        let path = directory.resolvingSymlinksInPath().path
        #expect(Self.descriptors(of: path) == 1)
        if renamingAside {
            try FileManager.default.moveItem(at: directory, to: aside)
        } else {
            try FileManager.default.removeItem(at: directory)
        }
        // The first write after the change makes the directory again, without the lock when
        // there is nothing to open yet; the next one locks the new directory.
        for key in ["b", "c"] {
            cache.store(image, metadata: CachedResponseMetadata(storedAt: Date()), forKey: key)
            cache.flush()
        }
        #expect(cache.entry(forKey: "c")?.data == image)
        #expect(Self.descriptors(of: path) == 1, "the lock still holds the old directory, which keeps no other process out")
        #expect(Self.descriptors(of: aside.resolvingSymlinksInPath().path) == 0)
    }

    @Test("a directory replaced while its cache is open: the path still gets that cache, whose operations go to the directory there")
    func replacedDirectoryKeepsItsCache() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("CachedImageReplaced-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("Images", isDirectory: true)
        let first = try DiskCache.shared(directory: directory)
        try FileManager.default.moveItem(at: directory, to: root.appendingPathComponent("Images.old"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        #expect(try DiskCache.shared(directory: directory) === first, "two caches with two indexes and two limits on one directory")
    }

    @Test("a directory renamed away is not the cache of the name its inode now has: each path gets the cache of the directory it leads to")
    func renamedDirectoryIsNotReused() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("CachedImageRenamed-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let first = try DiskCache.shared(directory: root.appendingPathComponent("a"))
        // The same inode under another name: the first cache's path no longer leads to it.
        try FileManager.default.moveItem(at: root.appendingPathComponent("a"), to: root.appendingPathComponent("b"))
        let second = try DiskCache.shared(directory: root.appendingPathComponent("b"))
        #expect(first !== second)
        #expect(second.directoryPath.hasSuffix("/b"))
        let image = ImageFixtures.png(width: 8, height: 8, seed: 3)
        second.store(image, metadata: CachedResponseMetadata(storedAt: Date()), forKey: "k")
        second.flush()
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("a").path) == false, "a write for b went to a")
        #expect(try DiskCache.shared(directory: root.appendingPathComponent("b")) === second)
        withExtendedLifetime(first) {}
    }

    @Test("a directory that exists but cannot be opened for the lock is reported once, and operations go on")
    func unopenableDirectoryIsReported() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("CachedImageUnopenable-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("cache")
        let errors = Locked<[DiskCache.Error]>([])
        let cache = try DiskCache(directory: directory) { error in errors.withLock { $0.append(error) } }
        // The directory becomes a symbolic link to itself: it exists, and every open fails (ELOOP).
        try FileManager.default.removeItem(at: directory)
        try FileManager.default.createSymbolicLink(atPath: directory.path, withDestinationPath: directory.path)
        for key in ["a", "b"] {
            cache.store(ImageFixtures.png(width: 8, height: 8, seed: 4), metadata: CachedResponseMetadata(storedAt: Date()), forKey: key)
            cache.flush()
        }
        let opens = errors.withLock { $0 }.filter { $0.operation == .open }
        #expect(opens.count == 1, "\(errors.withLock { $0 })")
        #expect((opens.first?.underlying as? POSIXError)?.code == .ELOOP)
    }

    /// How many of this process's descriptors are open on the directory at `path` (Linux).
    static func descriptors(of path: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }.count
    }

    @Test("another process using the directory does not keep this one out: both open, store and read")
    func anotherProcessSharesTheDirectory() async throws {
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

        var configuration = ImagePipeline.Configuration()
        configuration.diskCacheDirectory = directory
        let pipeline = ImagePipeline(configuration: configuration)
        #expect(pipeline.diskCacheOpenError == nil)
        let cache = try #require(pipeline.diskCache)
        let image = ImageFixtures.png(width: 8, height: 8, seed: 1)
        try pipeline.storeImageData(image, forKey: "mine")
        cache.flush()
        #expect(cache.entry(forKey: ImagePipeline.customKeyURL("mine").absoluteString)?.data == image)
        // The writer's entries (it cycles through slot-0 to slot-39) are read here, exact.
        var verified = 0
        let deadline = Date().addingTimeInterval(30)
        while verified == 0, Date() < deadline {
            for slot in 0..<CrashSafetyTests.slotCount {
                guard let entry = cache.entry(forKey: "slot-\(slot)") else { continue }
                let version = entry.metadata.etag.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "\""))) }
                #expect(version.map { entry.data == ImageFixtures.versionedPNG(slot: slot, version: $0) } == true)
                verified += 1
            }
        }
        #expect(verified > 0, "no entry of the other process was read")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    @Test("two processes writing and reading one directory at once: never a wrong byte, each reads the other's entries, the limit holds after both finish")
    func twoProcessesInterleave() throws {
        let writer = try #require(CrashSafetyTests.writerURL(), "cachedimage-crash-writer was not built next to the tests")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("CachedImageInterleave-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sizeLimit = 90_000 // below what the keys of both need, so both evict
        let workers = [("a", "b"), ("b", "a")].map { tag, peer in
            let process = Process()
            process.executableURL = writer
            process.arguments = ["share", directory.path, tag, peer, String(sizeLimit), "600"]
            let output = Pipe()
            process.standardOutput = output
            return (process, output)
        }
        for (process, _) in workers { try process.run() }
        for (process, output) in workers {
            let summary = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let counts = Dictionary(uniqueKeysWithValues: summary.split(whereSeparator: \.isWhitespace).compactMap { field -> (String, Int)? in
                let parts = field.split(separator: "=")
                guard parts.count == 2, let value = Int(parts[1]) else { return nil }
                return (String(parts[0]), value)
            })
            print("process interleaving: \(process.arguments?[2] ?? ""): \(summary.trimmingCharacters(in: .whitespacesAndNewlines))")
            #expect(process.terminationStatus == 0, "\(summary)")
            #expect(counts["mismatches"] == 0, "wrong bytes were served: \(summary)")
            #expect(counts["saw-peer-final"] == 1, "the other process's last entry was never read: \(summary)")
            #expect((counts["peer-hits"] ?? 0) > 0, "no entry of the other process was read while both ran: \(summary)")
        }
        // Both finished: the entry files stay within the limit (counted before any new cache
        // opens and evicts), and every file is a complete entry readable here.
        let onDisk = ReliabilityChecks.sizeOfEntryFiles(in: directory)
        #expect(onDisk <= sizeLimit)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("tmp").path)) ?? []).isEmpty)
        let cache = try DiskCache(directory: directory, sizeLimit: sizeLimit)
        cache.flush()
        let entries = cache.allEntries()
        #expect(entries.count == cache.entryCount)
        #expect(cache.totalSize == onDisk)
        for info in entries {
            let entry = try #require(cache.entry(forKey: info.key))
            let version = try #require(entry.metadata.etag.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "\""))) })
            let slot = try #require(Self.sharingWorkerSlot(forKey: info.key), "unexpected key \(info.key)")
            #expect(entry.data == ImageFixtures.versionedPNG(slot: slot, version: version), "\(info.key)")
        }
    }

    /// The `versionedPNG` slot the `share` worker of `cachedimage-crash-writer` stores under
    /// `key` ("own-<tag>-<n>", "shared-<n>", "final-<tag>"; see its SharingWorker.swift).
    static func sharingWorkerSlot(forKey key: String) -> Int? {
        let parts = key.split(separator: "-")
        func tagNumber(_ tag: Substring) -> Int? { tag.unicodeScalars.first.map { Int($0.value) % 64 + 1 } }
        switch (parts.first, parts.count) {
        case ("shared", 2): return Int(parts[1])
        case ("own", 3): return tagNumber(parts[1]).flatMap { number in Int(parts[2]).map { 1_000 * number + $0 } }
        case ("final", 2): return tagNumber(parts[1]).map { 1_000 * $0 + 999 }
        default: return nil
        }
    }
}
