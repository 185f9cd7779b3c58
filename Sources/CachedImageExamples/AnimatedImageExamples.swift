#if canImport(SwiftUI) && canImport(ImageIO)
import CachedImage
import SwiftUI

/// An animated sticker with a play/pause button, played once at 1.5x; a failure offers a retry.
/// When the animation finishes, `playing` goes back to `false`, so the button replays it.
@MainActor
public struct ControlledSticker: View {
    let url: URL?
    @State private var playing = true

    public init(url: URL?) {
        self.url = url
    }

    public var body: some View {
        VStack {
            CachedAnimatedImage(request: ImageRequest(url: url), isAnimating: $playing) { phase in
                switch phase {
                case .success(let image):
                    image.resizable().scaledToFit()
                case .failure(_, let retry):
                    Button("Retry") { retry() }
                case .empty:
                    ProgressView()
                }
            }
            .animationLoopCount(1)
            .animationSpeed(1.5)
            .frame(width: 120, height: 120)

            Button(playing ? "Pause" : "Play") { playing.toggle() }
        }
    }
}
#endif
