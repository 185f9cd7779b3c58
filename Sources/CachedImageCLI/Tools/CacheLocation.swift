import Foundation
import CachedImageCore

/// Where the tools find a cache: `--cache DIR`, or the pipeline's default directory.
enum CacheLocation {
    /// `path` (with `~` expanded, relative to the current directory), or
    /// ``ImagePipeline/Configuration/defaultDiskCacheDirectory``.
    static func resolve(_ path: String?) throws -> URL {
        if let path {
            guard !path.isEmpty else { throw CLIError("--cache needs a directory path") }
            let expanded = NSString(string: path).expandingTildeInPath
            return URL(fileURLWithPath: expanded, isDirectory: true).standardizedFileURL
        }
        guard let directory = ImagePipeline.Configuration.defaultDiskCacheDirectory else {
            throw CLIError("no default cache directory on this system; pass --cache DIR")
        }
        return directory
    }

    /// Opens the existing cache in `directory` without evicting anything, or throws when there
    /// is no such directory (reading tools never create one).
    static func openExisting(_ directory: URL) throws -> DiskCache {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            throw CLIError("no cache at \(directory.path)")
        }
        guard isDirectory.boolValue else {
            throw CLIError("\(directory.path) is a file, not a cache directory")
        }
        do {
            return try DiskCache(directory: directory, sizeLimit: .max)
        } catch {
            throw CLIError("cannot open the cache at \(directory.path): \(error)")
        }
    }
}
