#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// A screen whose images load through a pipeline with its own configuration, and the two
/// chained options.
@MainActor
public struct GalleryScreen: View {
    /// Created once. `body` runs often: a pipeline created inside it would be a new pipeline
    /// each time, with an empty memory cache, so every image would load again (from disk or
    /// the network) and flash its placeholder. Keep it in a `static let`, in `@State`, or in
    /// your app's model.
    static let pipeline: ImagePipeline = {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCacheSizeLimit = 300 * 1024 * 1024
        configuration.diskCachePolicy = .automatic
        return ImagePipeline(configuration: configuration)
    }()

    let urls: [URL]

    public init(urls: [URL]) {
        self.urls = urls
    }

    public var body: some View {
        ScrollView {
            LazyVStack {
                ForEach(urls, id: \.self) { url in
                    CachedAsyncImage(url: url) { image in
                        image.resizable().scaledToFit()
                    } placeholder: {
                        Color.gray.opacity(0.2)
                    }
                    .keepsPreviousImageWhileLoading()
                    .offscreenBehavior(.cancel)
                }
            }
        }
        .imagePipeline(Self.pipeline)
    }
}
#endif
