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

#if canImport(UIKit) && canImport(ImageIO) && !os(watchOS)
import UIKit

/// A collection view cell playing a sticker: set the image in `cellForItemAt` (before the cell
/// is in a window); it plays once on screen and stops, keeping one frame, when it leaves.
public final class StickerCell: UICollectionViewCell {
    public let sticker = CachedAnimatedImageView()

    public override init(frame: CGRect) {
        super.init(frame: frame)
        sticker.frame = contentView.bounds
        sticker.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        sticker.contentMode = .scaleAspectFit
        contentView.addSubview(sticker)
    }

    public required init?(coder: NSCoder) {
        super.init(coder: coder)
        contentView.addSubview(sticker)
    }

    /// Shows `url`, capped at the cell's size in pixels.
    public func configure(with url: URL?, scale: CGFloat) {
        let side = Int((max(bounds.width, bounds.height) * scale).rounded())
        sticker.requestDefaults = ImageRequestDefaults(maximumPixelSize: PixelSize(width: side, height: side))
        sticker.setImage(with: ImageRequest(url: url))
    }
}
#endif
