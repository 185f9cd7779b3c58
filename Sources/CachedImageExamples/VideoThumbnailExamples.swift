#if canImport(SwiftUI) && !os(watchOS)
import CachedImage
import SwiftUI

/// A feed of clips, each shown as its first frame: the pipeline registers the video decoder once
/// (opt-in), and every `CachedAsyncImage` under it shows a video URL like an image, decoded at
/// the cell's size and cached like one.
public enum ClipFeed {
    /// The feed's pipeline, with video thumbnails, apart from the app's image pipeline. Create it once.
    public static let pipeline: ImagePipeline = {
        var configuration = ImagePipeline.Configuration()
        configuration.decoderRegistry.registerVideoThumbnails()
        // A download's body stays in memory until it completes: at most 3 x 20 MB = 60 MB here
        // (the defaults, 12 x 50 MB, would allow 600 MB).
        configuration.maximumResponseBytes = 20 * 1024 * 1024
        configuration.maximumConcurrentDownloads = 3
        // Clips in their own disk cache, so they do not push the app's images out.
        configuration.diskCacheDirectory = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)
            .first?.appendingPathComponent("ClipThumbnails", isDirectory: true)
        configuration.diskCacheSizeLimit = 500 * 1024 * 1024
        // Keeps each cell-sized frame on disk too: a memory miss decodes it, not the clip.
        configuration.diskCachePolicy = .automatic
        return ImagePipeline(configuration: configuration)
    }()
}

/// One clip: its first frame filling a 16:9 cell, with a play badge.
@MainActor
public struct ClipCell: View {
    let videoURL: URL

    public init(videoURL: URL) {
        self.videoURL = videoURL
    }

    public var body: some View {
        Color.clear
            .aspectRatio(16 / 9, contentMode: .fit)
            .overlay {
                CachedAsyncImage(url: videoURL) { image in
                    image.resizable().scaledToFill()
                } placeholder: {
                    Color.secondary.opacity(0.2)
                }
            }
            .clipped()
            .overlay {
                Image(systemName: "play.circle.fill").font(.largeTitle).foregroundStyle(.white)
            }
            .imagePipeline(ClipFeed.pipeline)
    }
}
#endif
