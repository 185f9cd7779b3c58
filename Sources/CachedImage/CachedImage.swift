// CachedImage: the module apps import. It re-exports the engine (`ImagePipeline`, `ImageRequest`,
// `ImagePrefetcher`, `ImageLoader`, ...) and adds the Apple layer: `CachedAsyncImage`, the
// `.imagePipeline(_:)` environment value, `PlatformImage` bridging and memory-pressure trimming.
// On platforms without SwiftUI/UIKit (Linux) only the re-export remains.
@_exported import CachedImageCore
