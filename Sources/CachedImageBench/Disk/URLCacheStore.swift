import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Foundation's `URLCache` with a disk capacity large enough for the whole workload and no
/// memory capacity (so reads come from disk, like the other stores), storing each image as a
/// cacheable `200` response.
struct URLCacheStore: DiskStore {
    let name = "URLCache (disk)"
    let cache: URLCache

    init(directory: URL) {
        cache = URLCacheFactory.make(memoryCapacity: 0, diskCapacity: 64 * 1024 * 1024 * 1024, directory: directory)
    }

    func write(_ data: Data, url: URL, index: Int) {
        guard let response = HTTPURLResponse(
            url: url, statusCode: 200, httpVersion: "HTTP/1.1",
            headerFields: ["Content-Type": "image/jpeg", "Cache-Control": "max-age=86400", "Content-Length": "\(data.count)"]
        ) else { return }
        cache.storeCachedResponse(CachedURLResponse(response: response, data: data), for: URLRequest(url: url))
    }

    func read(url: URL, index: Int) -> Data? {
        cache.cachedResponse(for: URLRequest(url: url))?.data
    }

    func finish() {}
}
