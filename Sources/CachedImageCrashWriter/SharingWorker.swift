// The `share` mode: one of two processes that write and read one cache directory at once, for
// the process-interleaving test (SharedDirectoryTests).
//
// Usage: cachedimage-crash-writer share <directory> <tag> <peer-tag> <size-limit> <operations>
//
// Each process stores its own keys ("own-<tag>-<n>") and keys both store ("shared-<n>"), removes
// some, and between writes reads its own, its peer's and the shared keys. Every value is
// ImageFixtures.versionedPNG(slot:version:) with the version as its ETag, and the versions of the
// two processes never overlap, so any hit is checked byte for byte and attributed to its writer.
// At the end each stores "final-<tag>" (again whenever the peer evicted it) and waits (at most
// 60 s) until it reads its peer's.
// Prints one line, "hits=<n> peer-hits=<n> mismatches=<n> saw-peer-final=<0|1>", and exits with
// 0 when nothing wrong was read.
import CachedImageCore
import Foundation
import ImageFixtures

enum SharingWorker {
    static let ownKeyCount = 24
    static let sharedKeyCount = 8

    struct Counts {
        var hits = 0
        var peerHits = 0
        var mismatches = 0
    }

    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 5, let sizeLimit = Int(arguments[3]), let operations = Int(arguments[4]) else {
            FileHandle.standardError.write(Data("usage: cachedimage-crash-writer share <directory> <tag> <peer-tag> <size-limit> <operations>\n".utf8))
            return 2
        }
        let directory = URL(fileURLWithPath: arguments[0], isDirectory: true)
        let tag = arguments[1]
        let peer = arguments[2]
        let cache: DiskCache
        do {
            cache = try DiskCache(directory: directory, sizeLimit: sizeLimit)
        } catch {
            FileHandle.standardError.write(Data("cannot open cache: \(error)\n".utf8))
            return 1
        }
        // Disjoint version ranges: which process wrote a value is known from its version alone.
        let base = versionBase(tag)
        let peerBase = versionBase(peer)
        var counts = Counts()
        var random = SystemRandomNumberGenerator()

        func check(_ key: String, slot: Int) {
            guard let entry = cache.entry(forKey: key) else { return }
            counts.hits += 1
            let version = entry.metadata.etag.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "\""))) }
            guard let version, entry.data == ImageFixtures.versionedPNG(slot: slot, version: version) else {
                counts.mismatches += 1
                FileHandle.standardError.write(Data("wrong bytes for \(key) (ETag \(entry.metadata.etag ?? "none"))\n".utf8))
                return
            }
            if version >= peerBase, version < peerBase + 1_000_000 { counts.peerHits += 1 }
        }

        for operation in 0..<operations {
            let version = base + operation
            let own = Int.random(in: 0..<ownKeyCount, using: &random)
            let shared = Int.random(in: 0..<sharedKeyCount, using: &random)
            switch operation % 10 {
            case 9:
                cache.removeEntry(forKey: ownKey(tag, own))
            case 4, 7:
                store(cache, key: sharedKey(shared), slot: sharedSlot(shared), version: version)
            default:
                store(cache, key: ownKey(tag, own), slot: ownSlot(tag, own), version: version)
            }
            let peerIndex = Int.random(in: 0..<ownKeyCount, using: &random)
            check(ownKey(peer, peerIndex), slot: ownSlot(peer, peerIndex))
            check(sharedKey(shared), slot: sharedSlot(shared))
            check(ownKey(tag, own), slot: ownSlot(tag, own))
            if operation % 25 == 0 { cache.flush() }
        }

        store(cache, key: "final-\(tag)", slot: finalSlot(tag), version: base + operations)
        cache.flush()
        var sawPeerFinal = false
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            // The peer, still writing, may have evicted it (least recently used there): again.
            if cache.entry(forKey: "final-\(tag)") == nil {
                store(cache, key: "final-\(tag)", slot: finalSlot(tag), version: base + operations)
            }
            if cache.entry(forKey: "final-\(peer)") != nil {
                check("final-\(peer)", slot: finalSlot(peer))
                sawPeerFinal = true
                break
            }
            usleep(2_000)
        }
        cache.flush()
        print("hits=\(counts.hits) peer-hits=\(counts.peerHits) mismatches=\(counts.mismatches) saw-peer-final=\(sawPeerFinal ? 1 : 0)")
        return counts.mismatches == 0 ? 0 : 3
    }

    static func versionBase(_ tag: String) -> Int {
        (Int(tag.unicodeScalars.first?.value ?? 0) % 64 + 1) * 1_000_000
    }

    static func ownKey(_ tag: String, _ index: Int) -> String { "own-\(tag)-\(index)" }
    static func ownSlot(_ tag: String, _ index: Int) -> Int { 1_000 * (versionBase(tag) / 1_000_000) + index }
    static func sharedKey(_ index: Int) -> String { "shared-\(index)" }
    static func sharedSlot(_ index: Int) -> Int { index }
    static func finalSlot(_ tag: String) -> Int { ownSlot(tag, 999) }

    static func store(_ cache: DiskCache, key: String, slot: Int, version: Int) {
        let metadata = CachedResponseMetadata(contentType: "image/png", etag: "\"\(version)\"", storedAt: Date())
        cache.store(ImageFixtures.versionedPNG(slot: slot, version: version), metadata: metadata, forKey: key)
    }
}
