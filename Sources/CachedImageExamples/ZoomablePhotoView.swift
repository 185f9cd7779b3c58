#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// A photo to zoom into: decoded at its own resolution (`.decodeFullResolution`), not at the
/// screen's size, so pinching in shows the original's pixels. A 12-megapixel photo holds 48 MB
/// while it is on screen; show one such view at a time. A smaller decode of the same photo
/// already in memory (the grid's thumbnail) shows at once while the full image decodes.
@MainActor
public struct ZoomablePhotoView: View {
    let url: URL?
    @State private var zoom: CGFloat = 1
    @GestureState private var pinch: CGFloat = 1

    public init(url: URL?) {
        self.url = url
    }

    public var body: some View {
        CachedAsyncImage(request: ImageRequest(url: url, priority: .high, options: [.decodeFullResolution])) { phase in
            if let image = phase.image {
                image.resizable().scaledToFit()
            } else if phase.error != nil {
                Button("Retry") { phase.retry() }
            } else {
                ProgressView(value: phase.progress?.fraction ?? 0).padding()
            }
        }
        .scaleEffect(zoom * pinch)
        .gesture(
            MagnificationGesture()
                .updating($pinch) { value, state, _ in state = value }
                .onEnded { value in zoom = min(max(zoom * value, 1), 8) }
        )
        .onTapGesture(count: 2) { zoom = zoom > 1 ? 1 : 3 }
    }
}
#endif
