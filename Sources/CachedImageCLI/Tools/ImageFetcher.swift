import Foundation
import CachedImageCore

/// `cachedimage fetch`: loads URLs through a pipeline over a cache directory and says where
/// each came from.
struct ImageFetcher: Sendable {
    /// One URL's result.
    struct Fetched: Sendable, Hashable {
        var url: URL
        /// `network`, `disk` or `revalidated`.
        var source: ImageResponse.Source
        /// The image's size in bytes.
        var byteCount: Int
        /// Body bytes received from the network (0 from disk, 0 for a 304).
        var bytesDownloaded: Int
        var pixelSize: PixelSize
        var format: ImageFormat
        /// Seconds.
        var duration: Double
    }

    /// How to load.
    struct Options: Sendable, Hashable {
        /// Ask the server to confirm cached images (a conditional request) even when fresh.
        var revalidate = false
        /// Serve only what is cached; never touch the network.
        var offline = false
    }

    let pipeline: ImagePipeline

    /// Loads `input` (a URL string). Errors are ``CLIError``s naming the URL.
    func fetch(
        _ input: String,
        options: Options,
        progress: (@Sendable (_ received: Int64, _ expected: Int64?) -> Void)? = nil
    ) async -> Result<Fetched, CLIError> {
        let url: URL
        do {
            url = try ImageURL.parse(input)
        } catch {
            return .failure(error as? CLIError ?? CLIError("\(input): \(error)"))
        }
        var requestOptions: ImageRequest.Options = []
        if options.revalidate { requestOptions.insert(.reloadRevalidatingCacheData) }
        if options.offline { requestOptions.insert(.returnCacheDataDontLoad) }
        let request = ImageRequest(url: url, options: requestOptions)
        let task = pipeline.imageTask(with: request, progress: progress)
        do {
            let response = try await task.response
            return .success(Fetched(
                url: url,
                source: response.source,
                byteCount: response.image.data?.count ?? response.metrics.bytesDownloaded,
                bytesDownloaded: response.metrics.bytesDownloaded,
                pixelSize: response.image.pixelSize,
                format: response.image.format,
                duration: response.metrics.duration
            ))
        } catch {
            return .failure(CLIError("\(url.absoluteString): \(CLIError.reason(for: error))"))
        }
    }

    /// Writes pending cache entries to disk; call before the process exits.
    func finish() {
        pipeline.diskCache?.flush()
    }
}
