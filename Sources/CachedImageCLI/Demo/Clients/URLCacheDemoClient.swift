import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What SwiftUI's `AsyncImage` does: each appearance loads the URL through a `URLSession` with
/// the default configuration and a `URLCache` (the default shared capacities unless overridden),
/// then decodes; there is no cache of decoded images.
///
/// On Apple platforms this is the real `URLSession` and `URLCache`. On Linux,
/// swift-corelibs-foundation's `URLSession` never uses its `URLCache`, which would make this
/// baseline "no cache at all"; there the client applies `.useProtocolCachePolicy` itself over
/// ``URLCacheModel``: a fresh stored response (`Cache-Control: max-age` counted from `Date`) is
/// served without a request, a stale one is revalidated with `If-None-Match`, `200` responses are
/// stored as `URLCache` would.
///
/// Whether a view hit the network is read from the server's per-image request count, the same way
/// on both platforms.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
final class URLCacheDemoClient: DemoClient {
    private let session: URLSession
    private let server: FeedServer
    private let cellPixels: Int
    private let clock: DemoClock
    private let decodes: DecodeCounter
    #if canImport(FoundationNetworking)
    private let cache: URLCacheModel
    #endif

    init(directory: URL, memoryCapacity: Int, diskCapacity: Int, server: FeedServer, cellPixels: Int, clock: DemoClock, decodes: DecodeCounter) {
        self.clock = clock
        self.decodes = decodes
        let configuration = URLSessionConfiguration.default
        #if canImport(FoundationNetworking)
        cache = URLCacheModel(directory: directory, memoryCapacity: memoryCapacity, diskCapacity: diskCapacity)
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        #else
        configuration.urlCache = URLCache(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, directory: directory)
        configuration.requestCachePolicy = .useProtocolCachePolicy
        #endif
        session = URLSession(configuration: configuration)
        self.server = server
        self.cellPixels = cellPixels
    }

    /// The default `URLCache.shared` capacities (memory, disk), in bytes: 4 MiB and 20 MiB as
    /// documented (and as swift-corelibs-foundation sets them); read from the system on Apple
    /// platforms.
    static var platformDefaultCapacities: (memory: Int, disk: Int) {
        #if canImport(FoundationNetworking)
        (4 * 1024 * 1024, 20 * 1024 * 1024)
        #else
        (URLCache.shared.memoryCapacity, URLCache.shared.diskCapacity)
        #endif
    }

    func load(_ image: FeedImage, url: URL) async -> Shown {
        let requestsBefore = server.requestCount(for: image)
        do {
            let data = try await loadData(url)
            let decoded = try DemoDecoder.decode(data, cellPixels: cellPixels, counter: decodes)
            return Shown(source: server.requestCount(for: image) > requestsBefore ? .network : .disk, data: decoded.data)
        } catch {
            return .failed
        }
    }

    func endLaunch() async {
        session.finishTasksAndInvalidate()
    }

    private struct BadStatus: Error {}

    #if canImport(FoundationNetworking)
    /// `.useProtocolCachePolicy`, as Apple's `URLSession` applies it.
    private func loadData(_ url: URL) async throws -> Data {
        let cached = cache.entry(for: url)
        if let cached, cached.isFresh(at: clock.now) {
            return cached.body
        }
        var request = URLRequest(url: url)
        if let etag = cached?.etag {
            request.setValue(etag, forHTTPHeaderField: "If-None-Match")
        }
        let (data, response) = try await session.cancellableData(for: request)
        guard let http = response as? HTTPURLResponse else { throw BadStatus() }
        if http.statusCode == 304, var refreshed = cached {
            refreshed.date = self.date(of: http)
            refreshed.maxAge = Self.maxAge(of: http) ?? refreshed.maxAge
            cache.store(refreshed)
            return refreshed.body
        }
        guard http.statusCode == 200 else { throw BadStatus() }
        let cacheControl = http.value(forHTTPHeaderField: "Cache-Control")?.lowercased() ?? ""
        if !cacheControl.contains("no-store") {
            cache.store(URLCacheModel.Entry(
                url: url.absoluteString, date: self.date(of: http), maxAge: Self.maxAge(of: http),
                etag: http.value(forHTTPHeaderField: "ETag"), body: data
            ))
        }
        return data
    }

    private func date(of response: HTTPURLResponse) -> Date {
        response.value(forHTTPHeaderField: "Date").flatMap(HTTPDateFormat.date(from:)) ?? clock.now
    }

    private static func maxAge(of response: HTTPURLResponse) -> TimeInterval? {
        guard let cacheControl = response.value(forHTTPHeaderField: "Cache-Control")?.lowercased() else { return nil }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == "max-age", let seconds = TimeInterval(parts[1]) { return seconds }
        }
        return nil
    }
    #else
    /// `URLSession` applies its protocol cache policy and `URLCache` itself.
    private func loadData(_ url: URL) async throws -> Data {
        let (data, response) = try await session.cancellableData(for: URLRequest(url: url))
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw BadStatus() }
        return data
    }
    #endif
}
