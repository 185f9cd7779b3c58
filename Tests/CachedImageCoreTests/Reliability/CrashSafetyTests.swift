import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process (`cachedimage-crash-writer`) stores, updates and removes entries in a loop and
/// is killed with SIGKILL at random points. After every kill a fresh cache on the same directory
/// must return, for each key, either nothing or exactly the bytes written for that key's
/// recorded version, and its size accounting must match the files on disk.
@Suite("Reliability: SIGKILL during disk writes never leaves a wrong or miscounted entry")
struct CrashSafetyTests {
    static let killCount = 220
    static let sizeLimit = 80_000  // below what 40 entries need, so writes evict
    static let slotCount = 40

    /// The writer binary, built next to the test bundle.
    static func writerURL() -> URL? {
        var candidates: [URL] = []
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory.appendingPathComponent("cachedimage-crash-writer"))
            directory = directory.deletingLastPathComponent()
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("cachedimage-crash-writer"))
        for bundle in Bundle.allBundles {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("cachedimage-crash-writer"))
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    @Test("220 SIGKILLs at random points: every surviving entry is exact and the size adds up")
    func killedWriterLeavesOnlyExactEntries() async throws {
        let writer = try #require(Self.writerURL(), "cachedimage-crash-writer was not built next to the tests")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CachedImageCrash-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var random = SystemRandomNumberGenerator()

        var killsLeavingTemporaryFiles = 0
        var survivingEntries = 0
        var verifiedEntries = 0
        var entriesPerKill: [Int] = []
        var newestVersions: [Int] = []
        for run in 0..<Self.killCount {
            let process = Process()
            process.executableURL = writer
            process.arguments = [directory.path, String(run * 1_000_000), String(Self.sizeLimit)]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // Wait until the cache is open, then let it write for a random while (0 to 15 ms).
            let ready = output.fileHandleForReading.readData(ofLength: 6)
            #expect(String(decoding: ready, as: UTF8.self) == "ready\n")
            try await Task.sleep(nanoseconds: UInt64.random(in: 0...15_000_000, using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            #expect(process.terminationStatus == SIGKILL)

            let temporaryFiles = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("tmp").path)) ?? []
            if !temporaryFiles.isEmpty { killsLeavingTemporaryFiles += 1 }

            let result = try Self.verify(directory)
            survivingEntries += result.entries
            verifiedEntries += result.verified
            entriesPerKill.append(result.entries)
            newestVersions.append(result.newestVersion)
        }
        // The kills landed while entries were being written, and entries survived them.
        #expect(survivingEntries > 0)
        #expect(verifiedEntries == survivingEntries)
        // Every run wrote something new: the newest surviving version comes from the latest run.
        let runsThatWrote = newestVersions.enumerated().filter { run, version in version > run * 1_000_000 }.count
        #expect(runsThatWrote > Self.killCount / 2)
        print(
            "crash safety: \(Self.killCount) kills, \(killsLeavingTemporaryFiles) interrupted a write (temporary file left), "
                + "\(runsThatWrote) runs wrote before the kill, \(verifiedEntries) surviving entries verified "
                + "(\(entriesPerKill.min() ?? 0)...\(entriesPerKill.max() ?? 0) per kill)"
        )
    }

    /// Opens a fresh cache on `directory`, reads every key and checks bytes and accounting.
    static func verify(_ directory: URL) throws -> (entries: Int, verified: Int, newestVersion: Int) {
        // Before the cache opens (and quietly deletes files too short to be entries): no entry
        // file may be torn. Only complete files are ever renamed into place.
        let listed = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in listed where KeyHasher.isFileName(name) {
            let size = (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path))?[.size] as? NSNumber
            #expect((size?.intValue ?? 0) >= DiskCacheEntryFormat.minimumHeaderLength, "torn entry file \(name): \(size?.intValue ?? 0) bytes")
        }
        let cache = try DiskCache(directory: directory, sizeLimit: sizeLimit)
        cache.flush()  // lets start-up clean-up (tiny or evicted files) finish
        let filesOnOpen = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter(KeyHasher.isFileName).count
        var verified = 0
        var newestVersion = -1
        for slot in 0..<slotCount {
            guard let entry = cache.entry(forKey: "slot-\(slot)") else { continue }
            let version = entry.metadata.etag.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "\""))) }
            guard let version, version % slotCount == slot else {
                Issue.record("slot \(slot): unexpected ETag \(String(describing: entry.metadata.etag))")
                continue
            }
            if entry.data == ImageFixtures.versionedPNG(slot: slot, version: version) {
                verified += 1
                newestVersion = max(newestVersion, version)
            } else {
                Issue.record("slot \(slot): bytes differ from version \(version)")
            }
        }
        cache.flush()  // corrupt files found while reading are deleted on the queue
        let entries = cache.entryCount
        #expect(entries == verified, "entries that could not be read back by key")
        // Writes are atomic (temporary file + rename): no entry file is ever torn, so every file
        // present after a kill is a complete entry. A torn file would be a lost older version.
        #expect(verified == filesOnOpen, "torn entry files after a kill")
        #expect(cache.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: directory))
        #expect(cache.totalSize <= sizeLimit)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.filter(KeyHasher.isFileName).count == entries)
        return (entries, verified, newestVersion)
    }
}
