import Foundation
import CachedImageCore
import LoopbackServer

/// CachedImage: the first frame asks the memory cache, the image shown since launch and a small
/// disk entry synchronously (as `ImageLoader` does), then the pipeline loads from disk or the
/// network. A stale image from the first frame is shown at once and revalidated behind it, and
/// stays when the revalidation fails (offline).
///
/// On a link without a bandwidth limit (loopback) the pipeline does not adapt its downloads to
/// the link: the only bottleneck there is the machine's processor, which a busy machine would
/// have measured as a slow link (previews turned on, transfers stepped aside), so the counts of
/// two runs would differ. On the fling's simulated links it adapts, as in an app.
final class PipelineDemoClient: DemoClient {
    let pipeline: ImagePipeline
    private let targetSize: PixelSize

    init(directory: URL, options: DemoOptions, link: LinkProfile, clock: DemoClock, decodes: DecodeCounter) {
        var configuration = ImagePipeline.Configuration()
        configuration.adaptsDownloadsToLink = link.downlinkBitsPerSecond != nil
        configuration.clock = clock
        configuration.decoder = CountingDecoder(base: configuration.decoder, counter: decodes)
        configuration.diskCacheDirectory = directory
        configuration.memoryCacheCostLimit = options.memoryLimit
        configuration.diskCacheSizeLimit = options.diskLimit
        if let slots = options.downloadSlots {
            let session = URLSessionDataLoader.defaultConfiguration
            session.httpMaximumConnectionsPerHost = slots
            configuration.dataLoader = URLSessionDataLoader(configuration: session)
            configuration.maximumConcurrentDownloads = slots
        }
        pipeline = ImagePipeline(configuration: configuration)
        targetSize = PixelSize(width: options.cellPixels, height: options.cellPixels)
    }

    func load(_ image: FeedImage, url: URL) async -> Shown {
        let request = ImageRequest(url: url, targetPixelSize: targetSize)
        let first = pipeline.firstFrameImage(for: request)
        if let first, !first.isStale {
            return Shown(source: first.source == .memory ? .memory : .disk, data: first.image.data)
        }
        let staleFirst = first != nil
        do {
            let response = try await pipeline.image(for: request)
            switch response.source {
            case .memory: return Shown(source: .memory, data: response.image.data, staleFirst: staleFirst)
            case .disk: return Shown(source: .disk, data: response.image.data, staleFirst: staleFirst)
            case .network, .revalidated: return Shown(source: .network, data: response.image.data, staleFirst: staleFirst)
            }
        } catch {
            // The revalidation failed (offline): the stale image stays on screen.
            guard let first else { return .failed }
            return Shown(source: first.source == .memory ? .memory : .disk, data: first.image.data, staleFirst: true)
        }
    }

    @MainActor func makeFlingView(_ image: FeedImage, url: URL, cellPixels: Int) -> any FlingView {
        LoaderFlingView(pipeline: pipeline, request: ImageRequest(url: url, targetPixelSize: targetSize))
    }

    var decodedCacheBytes: Int { pipeline.memoryCache?.totalCost ?? 0 }

    func endLaunch() async {
        pipeline.diskCache?.flush()
    }
}
