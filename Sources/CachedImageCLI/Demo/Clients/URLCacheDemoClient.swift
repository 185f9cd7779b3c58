import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What SwiftUI's `AsyncImage` does: each appearance loads the URL through a `URLSession` with
/// the default configuration and a `URLCache` (the platform's default shared capacities unless
/// overridden), then decodes; there is no cache of decoded images.
///
/// On Apple platforms `URLSession` applies its protocol cache policy itself. On Linux,
/// swift-corelibs-foundation's `URLSession` never reads or writes its `URLCache` (its HTTP
/// protocol reports every response as not cacheable), which would make this baseline "no cache
/// at all"; so there the client applies the same policy on top of the real `URLCache`: a fresh
/// cached response (`Cache-Control: max-age` counted from `Date`) is served without a request, a
/// stale one is revalidated with `If-None-Match`, and `200` responses are stored when no larger
/// than about 5% of the disk capacity (Apple's documented limit for caching a response).
///
/// `URLCache` does not say whether it answered, so the server's per-image request count decides
/// between `.disk` and `.network`.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
final class URLCacheDemoClient: DemoClient {
    private let session: URLSession
    private let cache: URLCache
    private let server: FeedServer
    private let cellPixels: Int

    init(directory: URL, memoryCapacity: Int, diskCapacity: Int, server: FeedServer, cellPixels: Int) {
        #if canImport(FoundationNetworking)
        cache = URLCache(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, diskPath: directory.path)
        #else
        cache = URLCache(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, directory: directory)
        #endif
        let configuration = URLSessionConfiguration.default
        #if canImport(FoundationNetworking)
        configuration.urlCache = nil  // Applied by hand below; corelibs would ignore it anyway.
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        #else
        configuration.urlCache = cache
        configuration.requestCachePolicy = .useProtocolCachePolicy
        #endif
        session = URLSession(configuration: configuration)
        self.server = server
        self.cellPixels = cellPixels
    }

    /// The platform's `URLCache.shared` capacities (memory, disk), in bytes.
    static var platformDefaultCapacities: (memory: Int, disk: Int) {
        (URLCache.shared.memoryCapacity, URLCache.shared.diskCapacity)
    }

    func load(_ image: FeedImage, url: URL) async -> LoadSource {
        let requestsBefore = server.requestCount(for: image)
        do {
            let data = try await loadData(URLRequest(url: url))
            _ = try DemoDecoder.decode(data, cellPixels: cellPixels)
            return server.requestCount(for: image) > requestsBefore ? .network : .disk
        } catch {
            return .failed
        }
    }

    func endLaunch() async {
        session.finishTasksAndInvalidate()
    }

    private struct BadStatus: Error {}

    #if canImport(FoundationNetworking)
    /// `URLSession` with `.useProtocolCachePolicy`, as Apple's implementation behaves.
    private func loadData(_ request: URLRequest) async throws -> Data {
        let cached = cache.cachedResponse(for: request)
        if let cached, Self.isFresh(cached) {
            return cached.data
        }
        var conditional = request
        if let etag = (cached?.response as? HTTPURLResponse)?.value(forHTTPHeaderField: "ETag") {
            conditional.setValue(etag, forHTTPHeaderField: "If-None-Match")
        }
        let (data, response) = try await session.data(for: conditional)
        guard let http = response as? HTTPURLResponse else { throw BadStatus() }
        if http.statusCode == 304, let cached {
            // Refresh the stored response's headers (its Date) so it is fresh again.
            cache.storeCachedResponse(CachedURLResponse(response: http.merging(into: cached.response), data: cached.data), for: request)
            return cached.data
        }
        guard http.statusCode == 200 else { throw BadStatus() }
        if Self.isStorable(http, byteCount: data.count, diskCapacity: cache.diskCapacity) {
            cache.storeCachedResponse(CachedURLResponse(response: http, data: data), for: request)
        }
        return data
    }

    private static func isFresh(_ cached: CachedURLResponse) -> Bool {
        guard let http = cached.response as? HTTPURLResponse,
              let maxAge = maxAge(http),
              let date = http.value(forHTTPHeaderField: "Date").flatMap(HTTPDateFormat.date(from:))
        else { return false }
        return Date().timeIntervalSince(date) < maxAge
    }

    private static func isStorable(_ response: HTTPURLResponse, byteCount: Int, diskCapacity: Int) -> Bool {
        let cacheControl = response.value(forHTTPHeaderField: "Cache-Control")?.lowercased() ?? ""
        return !cacheControl.contains("no-store") && byteCount <= diskCapacity / 20
    }

    private static func maxAge(_ response: HTTPURLResponse) -> TimeInterval? {
        guard let cacheControl = response.value(forHTTPHeaderField: "Cache-Control")?.lowercased() else { return nil }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == "max-age", let seconds = TimeInterval(parts[1]) { return seconds }
        }
        return nil
    }
    #else
    /// `URLSession` applies its protocol cache policy and `URLCache` itself.
    private func loadData(_ request: URLRequest) async throws -> Data {
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw BadStatus() }
        return data
    }
    #endif
}

#if canImport(FoundationNetworking)
extension HTTPURLResponse {
    /// The stored response with the header fields of a `304 Not Modified` laid over it.
    fileprivate func merging(into stored: URLResponse) -> URLResponse {
        guard let stored = stored as? HTTPURLResponse, let url = stored.url else { return stored }
        var fields: [String: String] = [:]
        for (name, value) in stored.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        for (name, value) in allHeaderFields {
            if let name = name as? String, let value = value as? String, name.lowercased() != "content-length" {
                fields[name] = value
            }
        }
        return HTTPURLResponse(url: url, statusCode: stored.statusCode, httpVersion: "HTTP/1.1", headerFields: fields) ?? stored
    }
}
#endif
