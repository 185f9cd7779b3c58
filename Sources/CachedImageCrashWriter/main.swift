// cachedimage-crash-writer: opens a DiskCache on a directory and mutates it in an endless loop,
// so the crash-safety test can SIGKILL it at random points and check what survives.
//
// Usage: cachedimage-crash-writer <directory> <first-version> <size-limit>
// (or `cachedimage-crash-writer share …`, see SharingWorker.swift)
//
// Every value written under key "slot-<s>" is ImageFixtures.versionedPNG(slot: s, version: v),
// with v recorded as the entry's ETag, so a verifier can recompute the exact bytes. Prints
// "ready" once the cache is open.
import CachedImageCore
import Foundation
import ImageFixtures

// `cachedimage-crash-writer share …`: one of two processes sharing a directory (SharingWorker.swift).
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "share" {
    exit(SharingWorker.run(Array(CommandLine.arguments.dropFirst(2))))
}

let slotCount = 40
let arguments = CommandLine.arguments
guard arguments.count == 4, let firstVersion = Int(arguments[2]), let sizeLimit = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: cachedimage-crash-writer <directory> <first-version> <size-limit>\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[1], isDirectory: true)
let cache: DiskCache
do {
    cache = try DiskCache(directory: directory, sizeLimit: sizeLimit)
} catch {
    FileHandle.standardError.write(Data("cannot open cache: \(error)\n".utf8))
    exit(1)
}
FileHandle.standardOutput.write(Data("ready\n".utf8))
// If the test that started us dies, stop rather than write forever.
let parent = getppid()

var version = firstVersion
while true {
    version += 1
    let slot = version % slotCount
    let key = "slot-\(slot)"
    // Each slot cycles through all operations as its versions advance.
    switch (version / slotCount + slot) % 10 {
    case 0:
        cache.removeEntry(forKey: key)
    case 1:
        // A metadata-only update: the bytes on disk must stay those of the entry's version.
        if let entry = cache.entry(forKey: key) {
            var metadata = entry.metadata
            metadata.lastModified = "v\(version)"
            cache.updateMetadata(metadata, forKey: key)
        }
    default:
        let metadata = CachedResponseMetadata(contentType: "image/png", etag: "\"\(version)\"", storedAt: Date())
        cache.store(ImageFixtures.versionedPNG(slot: slot, version: version), metadata: metadata, forKey: key)
    }
    if version % 4 == 0 {
        cache.flush()
        if getppid() != parent { exit(0) }
    }
}
