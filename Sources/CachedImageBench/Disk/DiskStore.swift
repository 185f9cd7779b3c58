import Foundation

/// A way to persist image bytes by URL that the disk benchmark can drive.
protocol DiskStore {
    var name: String { get }
    /// Persists `data` for `url`; `index` is the entry's position, for stores that name files by it.
    func write(_ data: Data, url: URL, index: Int)
    /// Reads back the bytes for `url`, or `nil`.
    func read(url: URL, index: Int) -> Data?
    /// Blocks until every write is on disk.
    func finish()
}
