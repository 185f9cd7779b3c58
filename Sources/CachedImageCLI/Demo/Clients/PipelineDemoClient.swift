import Foundation
import CachedImageCore

/// CachedImage: the first frame asks the memory cache synchronously, then the pipeline loads
/// from disk or the network.
final class PipelineDemoClient: DemoClient {
    let pipeline: ImagePipeline
    private let targetSize: PixelSize

    init(directory: URL, options: DemoOptions) {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCacheDirectory = directory
        configuration.memoryCacheCostLimit = options.memoryLimit
        configuration.diskCacheSizeLimit = options.diskLimit
        pipeline = ImagePipeline(configuration: configuration)
        targetSize = PixelSize(width: options.cellPixels, height: options.cellPixels)
    }

    func load(_ image: FeedImage, url: URL) async -> LoadSource {
        let request = ImageRequest(url: url, targetSize: targetSize)
        if pipeline.cachedImage(for: request) != nil {
            return .memory
        }
        do {
            switch try await pipeline.image(for: request).source {
            case .memory: return .memory
            case .disk: return .disk
            case .network, .revalidated: return .network
            }
        } catch {
            return .failed
        }
    }

    func endLaunch() async {
        pipeline.diskCache?.flush()
    }
}
