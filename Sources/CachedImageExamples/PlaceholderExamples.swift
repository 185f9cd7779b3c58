#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// A feed item as many APIs send it: the image's URL with a ThumbHash or a BlurHash.
public struct FeedPhoto: Identifiable, Sendable {
    public let id: Int
    public let url: URL?
    public let thumbHash: String?
    public let blurHash: String?
}

/// Something on screen from the first bytes: a hash placeholder until the image (or its first
/// progressive preview) arrives, then the progressive JPEG scan by scan.
@MainActor
public struct PlaceholderExamples: View {
    let photo: FeedPhoto

    public init(photo: FeedPhoto) {
        self.photo = photo
    }

    public var body: some View {
        VStack(spacing: 16) {
            // The hash paints the view at once; previews, then the final image, replace it.
            CachedAsyncImage(url: photo.url) { image in
                image.resizable().scaledToFill()
            } placeholder: {
                Color.gray.opacity(0.2)
            }
            .placeholder(thumbHash: photo.thumbHash)
            .progressivePreviews()
            .frame(height: 200)
            .clipped()

            CachedAsyncImage(url: photo.url) { phase in
                phase.image?.resizable().scaledToFill()
            }
            .placeholder(blurHash: photo.blurHash)
            .frame(width: 120, height: 120)
            .clipped()

            // The CachedImagePhase form says whether the image is a preview.
            CachedAsyncImage(request: ImageRequest(url: photo.url, options: [.showProgressivePreviews])) { phase in
                if let image = phase.image {
                    image.resizable().scaledToFit().overlay(alignment: .bottomTrailing) {
                        if phase.isPreview { ProgressView().padding(4) }
                    }
                } else {
                    ProgressView(value: phase.progress?.fraction ?? 0)
                }
            }
            .placeholder(thumbHash: photo.thumbHash)

            // Every form takes both options, keys included.
            CachedAsyncImage(url: photo.url).placeholder(blurHash: photo.blurHash)
            CachedAsyncImage(key: "avatar") { image in image.resizable() }.placeholder(thumbHash: photo.thumbHash)
        }
        // Previews for a whole screen: a subtree default.
        .imageRequestDefaults(ImageRequestDefaults(options: [.showProgressivePreviews]))
    }
}
#endif
