@preconcurrency import Dispatch
import Foundation

// The cache directory and its subdirectories.
extension DiskCache {
    /// `directory.standardizedFileURL`, skipped when its path has nothing to standardize (no
    /// `.` or `..` component, no double slash, no tilde): on Linux standardizing costs about 5 µs,
    /// a quarter of creating a pipeline.
    static func standardized(_ directory: URL) -> URL {
        let path = directory.path
        let isStandard = directory.isFileURL && path.hasPrefix("/") && !path.contains("//")
            && !path.split(separator: "/").contains { $0 == "." || $0 == ".." }
        return isStandard ? directory : directory.standardizedFileURL
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
