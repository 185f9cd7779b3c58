@preconcurrency import Dispatch
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
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
            let path = filePath(of: directory)
            if isStandard(path) { return (directory, path) }
        }
        let url = directory.standardizedFileURL
        return (url, url.path)
    }

    /// `url.path` for a file URL; on Linux cheaper when it has no base URL and nothing
    /// percent-encoded: `path(percentEncoded:)` skips resolving an absolute URL (a third of
    /// what `path` costs there), and only the trailing slashes `path` drops are left to drop.
    /// Anything encoded (`%2F` is not a separator, `%00` not an end) takes `path`.
    static func filePath(of url: URL) -> String {
        #if canImport(Darwin)
        return url.path
        #else
        guard url.baseURL == nil else { return url.path }
        var path = url.path(percentEncoded: true)
        guard !path.utf8.contains(UInt8(ascii: "%")) else { return url.path }
        while path.utf8.count > 1, path.utf8.last == UInt8(ascii: "/") { path.removeLast() }
        return path
        #endif
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

    /// Makes sure a directory is at `path`, creating it (with the cache's subdirectories) when
    /// nothing is there; throws a ``DiskCache/Error`` (`.open`, or `.createDirectory`) when
    /// something else is in the way.
    static func requireDirectory(_ path: String) throws {
        var code = ENOTDIR
        var info = stat()
        if stat(path, &info) == 0 {
            if FileIO.isDirectory(info) { return }
        } else {
            code = errno
        }
        guard code == ENOENT || code == ENOTDIR else {
            throw Error(operation: .open, key: nil, path: path, underlying: FileIO.posixError(code))
        }
        try createDirectories(path, temporaryDirectoryPath(in: path), snapshotDirectoryPath(in: path))
        guard FileIO.directoryStamp(atPath: path) != nil else {
            throw Error(operation: .open, key: nil, path: path, underlying: FileIO.posixError(ENOTDIR))
        }
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
}
