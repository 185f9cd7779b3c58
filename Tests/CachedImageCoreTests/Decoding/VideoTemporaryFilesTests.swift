import Foundation
import Testing
@testable import CachedImageCore

@Suite("Video thumbnails: the temporary files AVFoundation reads")
struct VideoTemporaryFilesTests {
    @Test("files go to the package's own folder; a kill's leftovers older than an hour are removed, recent files kept")
    func leftovers() throws {
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("video-tmp-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: temporary) }
        let files = VideoTemporaryFiles(temporaryDirectory: temporary)
        let old = try files.newFile(extension: "mp4")
        let recent = try files.newFile(extension: "mov")
        #expect(old.deletingLastPathComponent().lastPathComponent == "cachedimage-video")
        #expect(recent.pathExtension == "mov" && old != recent)
        try Data(repeating: 1, count: 16).write(to: old)
        try Data(repeating: 2, count: 16).write(to: recent)
        let now = Date()
        try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-2 * 60 * 60)], ofItemAtPath: old.path)
        try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-10 * 60)], ofItemAtPath: recent.path)
        // A file of the app's own next to the folder is never touched.
        let unrelated = temporary.appendingPathComponent("app-file")
        try Data([3]).write(to: unrelated)
        try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-2 * 60 * 60)], ofItemAtPath: unrelated.path)

        files.removeLeftovers(now: now)
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(FileManager.default.fileExists(atPath: recent.path))
        #expect(FileManager.default.fileExists(atPath: unrelated.path))
    }
}
