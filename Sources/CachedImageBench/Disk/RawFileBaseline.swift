import Foundation
import ToolSupport

/// The raw-file baselines of the disk benchmark, both a ``RawFileStore`` (one plain file per
/// entry: no hashing, no header, no checksum).
struct RawFileBaseline: DiskStore {
    enum Layout {
        /// The floor: files named by the entry's index, written with `FileManager.createFile`
        /// and read with `Data(contentsOf:)`.
        case floor
        /// The approach many apps start with: each image saved into a documents directory under
        /// its URL's `lastPathComponent` (atomic write), `fileExists` checked before reading it back.
        case documentsDirectory
    }

    let name: String
    private let layout: Layout
    private let files: RawFileStore

    init(_ layout: Layout, directory: URL) throws {
        self.layout = layout
        switch layout {
        case .floor:
            name = "raw FileManager + Data(contentsOf:) (floor)"
            files = try RawFileStore(directory: directory, writing: .createFile)
        case .documentsDirectory:
            name = "documents dir by lastPathComponent"
            files = try RawFileStore(directory: directory, writing: .atomic)
        }
    }

    func write(_ data: Data, url: URL, index: Int) {
        try? files.write(data, as: fileName(url: url, index: index))
    }

    func read(url: URL, index: Int) -> Data? {
        let file = fileName(url: url, index: index)
        if layout == .documentsDirectory && !files.exists(file) { return nil }
        return try? files.read(file)
    }

    func finish() {}

    private func fileName(url: URL, index: Int) -> String {
        switch layout {
        case .floor: String(index)
        case .documentsDirectory: url.lastPathComponent
        }
    }
}
