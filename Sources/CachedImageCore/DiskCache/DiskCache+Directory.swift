@preconcurrency import Dispatch
import Foundation

// The cache directory and its subdirectories.
extension DiskCache {
    /// `directory.standardizedFileURL` and its path, computed once for everything that opening a
    /// cache needs (`URL.path` costs about a microsecond on Linux). Standardizing is skipped when
    /// the path has nothing to standardize (no `.` or `..` component, no double slash): it costs
    /// about 5 µs on Linux, and testing the path with `String` searches and `split` cost 7 µs, a
    /// quarter of creating a pipeline; one pass over the UTF-8 bytes costs well under one.
    static func standardizedLocation(_ directory: URL) -> (url: URL, path: String) {
        if directory.isFileURL {
            let path = directory.path
            if isStandard(path) { return (directory, path) }
        }
        let url = directory.standardizedFileURL
        return (url, url.path)
    }

    /// Whether `path` is absolute with no empty, `.` or `..` component (a trailing slash is fine).
    static func isStandard(_ path: String) -> Bool {
        var utf8 = path.utf8.makeIterator()
        guard utf8.next() == UInt8(ascii: "/") else { return false }
        // Bytes of the current component so far, counting only while they are all dots.
        var componentLength = 0
        var isAllDots = true
        var previousWasSlash = true
        while let byte = utf8.next() {
            if byte == UInt8(ascii: "/") {
                if previousWasSlash { return false } // `//`
                if isAllDots, componentLength <= 2 { return false } // `/./` or `/../`
                componentLength = 0
                isAllDots = true
                previousWasSlash = true
                continue
            }
            previousWasSlash = false
            componentLength += 1
            if byte != UInt8(ascii: ".") { isAllDots = false }
        }
        // The last component: `.` or `..` at the end.
        return previousWasSlash || !(isAllDots && componentLength <= 2)
    }

    /// Creates the cache directory, its `tmp` subdirectory and, if given, the snapshot's. Costs
    /// one `stat` per subdirectory when they exist (every open but the first).
    static func createDirectories(_ directoryPath: String, _ temporaryPath: String, _ snapshotPath: String?) throws {
        let fileManager = FileManager.default
        var created: [String] = []
        for path in [temporaryPath] + (snapshotPath.map { [$0] } ?? []) {
            if FileIO.directoryStamp(atPath: path) != nil { continue }
            // Something else under that name: make room for the directory.
            try? fileManager.removeItem(atPath: path)
            do {
                try fileManager.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw Error(operation: .createDirectory, key: nil, path: path, underlying: error)
            }
            created.append(path)
        }
        #if os(iOS)
        // Entries are readable after the first unlock (background prefetches keep working) and
        // encrypted before it. New files inherit the directory's class; best effort, as a
        // protection class cannot be set on every volume.
        for path in created.isEmpty ? [] : [directoryPath] + created {
            try? fileManager.setAttributes(
                [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: path
            )
        }
        #endif
    }

    /// Deletes leftovers of interrupted writes. They were never renamed into place, so they are
    /// never valid entries.
    static func removeTemporaryFiles(in temporaryPath: String) {
        guard let files = try? FileIO.listFiles(atPath: temporaryPath) else { return }
        for file in files {
            try? FileIO.removeFile(atPath: temporaryPath + "/" + file.name)
        }
    }
}
