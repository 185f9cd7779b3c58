import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import CachedImageCore
import ToolSupport

/// The in-memory approach: an `NSCache` of decoded images (cost = decoded bytes, the same budget
/// as CachedImage's memory cache) in front of `URLSession` (no `URLCache`). Nothing survives a
/// relaunch.
final class NSCacheDemoClient: DemoClient, @unchecked Sendable {
    /// `NSCache` needs class values.
    private final class Box {
        let image: DecodedImage
        init(_ image: DecodedImage) { self.image = image }
    }

    // NSCache is documented thread-safe; it is only not marked Sendable.
    private let cache = NSCache<NSString, Box>()
    private let session: URLSession
    private let cellPixels: Int
    private let decodes: DecodeCounter
    /// The cost of every key stored, to tell how much the cache still holds (NSCache evicts silently).
    private let stored = Protected<[NSString: Int]>([:])

    init(memoryLimit: Int, cellPixels: Int, decodes: DecodeCounter) {
        self.decodes = decodes
        cache.totalCostLimit = memoryLimit
        session = URLSession(configuration: NaiveSession.configuration())
        self.cellPixels = cellPixels
    }

    func load(_ image: FeedImage, url: URL) async -> Shown {
        let key = url.absoluteString as NSString
        if let cached = cache.object(forKey: key) {
            return Shown(source: .memory, data: cached.image.data)
        }
        do {
            let (data, response) = try await session.cancellableData(for: URLRequest(url: url))
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { return .failed }
            let decoded = try DemoDecoder.decode(data, cellPixels: cellPixels, counter: decodes)
            cache.setObject(Box(decoded), forKey: key, cost: decoded.cost)
            stored.withLock { $0[key] = decoded.cost }
            return Shown(source: .network, data: decoded.data)
        } catch {
            return .failed
        }
    }

    var decodedCacheBytes: Int {
        stored.withLock { $0 }.reduce(0) { total, entry in
            total + (cache.object(forKey: entry.key) != nil ? entry.value : 0)
        }
    }

    func endLaunch() async {
        session.finishTasksAndInvalidate()
    }
}
