import CachedImageCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The baseline: what `AsyncImage` does. Every appearance asks a `URLSession` whose `URLCache`
/// has memory and disk capacity (HTTP caching honoured), then decodes the bytes; there is no
/// cache of decoded images and no coalescing of identical requests.
final class AsyncImageStyleLoader: @unchecked Sendable {
    // @unchecked: URLSession and URLCache are thread-safe; the other fields are immutable.
    private let session: URLSession
    private let decoder = HeaderImageDecoder()

    init(cacheDirectory: URL) {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = URLCacheFactory.make(
            memoryCapacity: 50 * 1024 * 1024, diskCapacity: 500 * 1024 * 1024, directory: cacheDirectory
        )
        configuration.requestCachePolicy = .useProtocolCachePolicy
        configuration.httpMaximumConnectionsPerHost = 6
        session = URLSession(configuration: configuration)
    }

    deinit { session.invalidateAndCancel() }

    /// Loads and decodes the image at `url`.
    func image(for url: URL, targetSize: PixelSize) async throws -> DecodedImage {
        let data: Data = try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: URLRequest(url: url)) { data, response, error in
                if let data, let http = response as? HTTPURLResponse, http.statusCode == 200 {
                    continuation.resume(returning: data)
                } else {
                    continuation.resume(throwing: error ?? URLError(.badServerResponse))
                }
            }.resume()
        }
        guard let info = ImageInfo(data: data) else { throw URLError(.cannotDecodeContentData) }
        return try decoder.decode(data, info: info, targetPixelSize: targetSize)
    }
}
