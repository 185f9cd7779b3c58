import Foundation

/// The floor: one plain file per entry, named by its index (no hashing, no header, no
/// checksum), written with `FileManager.createFile` and read with `Data(contentsOf:)`.
struct RawFileStore: DiskStore {
    let name = "raw FileManager + Data(contentsOf:) (floor)"
    let directory: URL

    init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func write(_ data: Data, url: URL, index: Int) {
        _ = FileManager.default.createFile(atPath: directory.path + "/\(index)", contents: data)
    }

    func read(url: URL, index: Int) -> Data? {
        try? Data(contentsOf: URL(fileURLWithPath: directory.path + "/\(index)"))
    }

    func finish() {}
}
