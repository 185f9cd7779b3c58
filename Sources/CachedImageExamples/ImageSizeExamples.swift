#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// A feed row for a photo whose API gives no size: the row takes the photo's height as soon as
/// the download's first bytes give its size, long before the last byte, so the rows below move
/// once, early, and not again when the photo arrives.
@MainActor
public struct UnsizedFeedRow: View {
    let url: URL?

    public init(url: URL?) {
        self.url = url
    }

    public var body: some View {
        CachedAsyncImage(request: ImageRequest(url: url)) { (phase: CachedImagePhase) in
            if let image = phase.image {
                image.resizable().scaledToFit()
            } else {
                // Until the size is known, a 4:3 guess; then the photo's own aspect ratio.
                Color.gray.opacity(0.15)
                    .aspectRatio(phase.progress?.pixelSize.map { CGFloat($0.aspectRatio) } ?? 4 / 3, contentMode: .fit)
            }
        }
        .frame(maxWidth: .infinity)
    }
}
#endif
