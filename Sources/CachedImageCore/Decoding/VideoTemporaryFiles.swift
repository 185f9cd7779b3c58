import Foundation

/// The folder the video decoder writes a video's bytes to for AVFoundation (which opens files,
/// not bytes): `cachedimage-video` in the temporary directory, owned by the package. A process
/// killed mid-decode leaves its file behind; the first decode of a launch removes files older
/// than an hour (a decode in another process of the app, such as an extension, is never that old).
package struct VideoTemporaryFiles: Sendable {
    /// The folder.
    package let directory: URL

    /// How old a file must be to be a leftover.
    package static let leftoverAge: TimeInterval = 60 * 60

    /// The folder under `temporaryDirectory`.
    package init(temporaryDirectory: URL = FileManager.default.temporaryDirectory) {
        directory = temporaryDirectory.appendingPathComponent("cachedimage-video", isDirectory: true)
    }

    /// The folder of the process, its leftovers removed on first use.
    package static let shared: VideoTemporaryFiles = {
        let files = VideoTemporaryFiles()
        files.removeLeftovers(now: Date())
        return files
    }()

    /// A new file's URL with `fileExtension`, the folder created if needed.
    package func newFile(extension fileExtension: String) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("\(UUID().uuidString).\(fileExtension)")
    }

    /// Removes the folder's files last modified more than ``leftoverAge`` before `now`.
    package func removeLeftovers(now: Date) {
        let manager = FileManager.default
        guard let files = try? manager.contentsOfDirectory(
            at: directory, includingPropertiesForKeys: [.contentModificationDateKey]
        ) else { return }
        for file in files {
            guard let modified = try? file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate,
                  now.timeIntervalSince(modified) > Self.leftoverAge
            else { continue }
            try? manager.removeItem(at: file)
        }
    }
}
