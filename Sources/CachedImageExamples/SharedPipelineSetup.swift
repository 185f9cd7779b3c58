#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// An app that configures the shared pipeline once, at launch, before any image loads: every
/// `CachedAsyncImage`, `UIImageView.cachedImage` call, `CachedImageViewLoader` and
/// `ImagePrefetcher` given no pipeline of its own then uses it. (Mark your app's type `@main`.)
@MainActor
public struct PhotosApp: App {
    public init() {
        var configuration = ImagePipeline.Configuration()
        configuration.memoryCacheCostLimit = 150 * 1024 * 1024
        configuration.diskCacheSizeLimit = 500 * 1024 * 1024
        ImagePipeline.shared = ImagePipeline(configuration: configuration)
    }

    public var body: some Scene {
        WindowGroup {
            PhotoListView(photos: [])
        }
    }
}
#endif
