import CachedImageCore
import Foundation

/// The shipped `DiskCache`: checksummed entry files with the HTTP metadata, written off the
/// caller's path; a read verifies the key and the checksum.
struct ShippedDiskStore: DiskStore {
    let name = "DiskCache (shipped)"
    let cache: DiskCache
    let metadata = CachedResponseMetadata(
        contentType: "image/jpeg", etag: "\"5f3a-1b2c3d\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT",
        storedAt: Date(), initialAge: 0, freshnessLifetime: 86_400
    )

    init(directory: URL) throws {
        cache = try DiskCache(directory: directory, sizeLimit: .max)
    }

    func write(_ data: Data, url: URL, index: Int) {
        cache.store(data, metadata: metadata, forKey: url.absoluteString)
    }

    func read(url: URL, index: Int) -> Data? {
        cache.entry(forKey: url.absoluteString)?.data
    }

    func finish() { cache.flush() }
}
