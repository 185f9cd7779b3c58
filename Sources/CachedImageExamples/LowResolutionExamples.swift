#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// A photo's detail view whose API gives a thumbnail URL beside the full one: the grid's
/// thumbnail shows at once (from memory, at the size the grid showed it), the full photo
/// replaces it without a placeholder, and if the full photo fails the thumbnail stays, with a
/// retry button over it.
@MainActor
public struct ThumbnailFirstDetailView: View {
    let fullURL: URL?
    let thumbnailURL: URL?

    public init(fullURL: URL?, thumbnailURL: URL?) {
        self.fullURL = fullURL
        self.thumbnailURL = thumbnailURL
    }

    public var body: some View {
        CachedAsyncImage(request: request) { (phase: CachedImagePhase) in
            if let image = phase.image {
                image.resizable().scaledToFit()
                    .overlay(alignment: .bottom) {
                        if phase.error != nil {
                            Button("Retry") { phase.retry() }.padding()
                        }
                    }
            } else if phase.error != nil {
                Button("Retry") { phase.retry() }
            } else {
                ProgressView()
            }
        }
    }

    private var request: ImageRequest {
        var request = ImageRequest(url: fullURL, priority: .high)
        request.lowResolutionURL = thumbnailURL
        return request
    }
}
#endif
