#if canImport(SwiftUI) && canImport(ImageIO)
import CachedImage
import SwiftUI

/// SDWebImageSwiftUI's
/// `WebImage(url:options: [.progressiveLoad, .refreshCached]) { ... }.indicator(.progress)
/// .transition(.fade(duration: 0.3)).onSuccess { ... }.onFailure { ... }`, written with
/// CachedImage: the options are fields of the request or chained options, the indicator is the
/// phase's progress, and the callbacks are chained the same way.
@MainActor
public struct WebImageMigratedRow: View {
    let url: URL?
    let pullToRefresh: Bool

    public init(url: URL?, pullToRefresh: Bool = false) {
        self.url = url
        self.pullToRefresh = pullToRefresh
    }

    /// `.scaleDownLargeImages`: decode at the size shown, in points (the display's scale is
    /// applied for you). `.refreshCached`: ask the server again, as a pull-to-refresh does.
    private var request: ImageRequest {
        ImageRequest(
            url: url,
            targetSize: CGSize(width: 80, height: 80),
            options: pullToRefresh ? [.reloadRevalidatingCacheData] : []
        )
    }

    public var body: some View {
        CachedAsyncImage(request: request) { phase in
            if let image = phase.image {
                image.resizable().scaledToFill()
            } else if phase.error != nil {
                Button("Retry") { phase.retry() }
            } else {
                // `.indicator(.progress)`; `.indicator(.activity)` is a plain `ProgressView()`.
                ProgressView(value: phase.progress?.fraction ?? 0)
            }
        }
        .progressivePreviews()          // `.progressiveLoad`
        .fade(duration: 0.3)            // `.transition(.fade(duration: 0.3))`
        .onSuccess { response in        // `.onSuccess { image, data, cacheType in ... }`
            print("loaded from \(response.source)")
        }
        .onFailure { error in           // `.onFailure { error in ... }`
            print("failed: \(error)")
        }
        .frame(width: 80, height: 80)
        .clipped()
    }
}

/// SDWebImageSwiftUI's `AnimatedImage(url:)` and `WebImage(url:isAnimating:)`: an animated GIF,
/// APNG or WebP that plays while `isAnimating` is `true`.
@MainActor
public struct WebImageMigratedSticker: View {
    let url: URL?
    @State private var isAnimating = true

    public init(url: URL?) {
        self.url = url
    }

    public var body: some View {
        CachedAnimatedImage(url: url, contentMode: .fit, isAnimating: $isAnimating)
            .frame(width: 120, height: 120)
            .onTapGesture { isAnimating.toggle() }
    }
}
#endif
