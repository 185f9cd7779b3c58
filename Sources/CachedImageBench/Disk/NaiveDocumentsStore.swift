import Foundation

/// The approach many apps start with: save each image into a documents directory under its
/// URL's `lastPathComponent` (atomic write), check `fileExists` and read it back.
struct NaiveDocumentsStore: DiskStore {
    let name = "documents dir by lastPathComponent"
    let directory: URL

    init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func write(_ data: Data, url: URL, index: Int) {
        try? data.write(to: directory.appendingPathComponent(url.lastPathComponent), options: .atomic)
    }

    func read(url: URL, index: Int) -> Data? {
        let file = directory.appendingPathComponent(url.lastPathComponent)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try? Data(contentsOf: file)
    }

    func finish() {}
}
