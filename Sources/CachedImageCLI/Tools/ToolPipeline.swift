import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import CachedImageCore

/// The pipeline the tools load through: the given disk cache, no memory cache (a one-shot
/// process never reads an image twice), and a request timeout.
enum ToolPipeline {
    static func make(cacheDirectory: URL, diskLimit: Int, timeout: TimeInterval, maximumConcurrentDownloads: Int = 6) throws -> ImagePipeline {
        do {
            try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        } catch {
            throw CLIError("cannot create the cache directory \(cacheDirectory.path): \(error.localizedDescription)")
        }
        let session = URLSessionDataLoader.defaultConfiguration
        session.timeoutIntervalForRequest = timeout
        session.timeoutIntervalForResource = max(timeout, 60)
        session.httpMaximumConnectionsPerHost = max(maximumConcurrentDownloads, 1)
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = URLSessionDataLoader(configuration: session)
        configuration.memoryCacheCostLimit = 0
        configuration.diskCacheDirectory = cacheDirectory
        configuration.diskCacheSizeLimit = diskLimit
        configuration.maximumConcurrentDownloads = max(maximumConcurrentDownloads, 1)
        let pipeline = ImagePipeline(configuration: configuration)
        guard pipeline.diskCache != nil else {
            throw CLIError("cannot open the cache at \(cacheDirectory.path)")
        }
        return pipeline
    }
}
