#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// A round avatar: resized and cut to a circle once, off the main actor. The memory cache keeps
/// the small round image (keyed by URL, size and processors), so scrolling back costs nothing.
@MainActor
public struct RoundAvatar: View {
    let url: URL?
    let side: CGFloat
    @Environment(\.displayScale) private var displayScale

    public init(url: URL?, side: CGFloat = 48) {
        self.url = url
        self.side = side
    }

    public var body: some View {
        let pixels = Int((side * displayScale).rounded())
        let request = ImageRequest(url: url, processors: [
            ImageProcessors.Resize(size: PixelSize(width: pixels, height: pixels), contentMode: .aspectFill, crop: true),
            ImageProcessors.Circle(),
        ])
        CachedAsyncImage(request: request, scale: displayScale) { image in
            image.resizable()
        } placeholder: {
            Circle().fill(Color.gray.opacity(0.3))
        }
        .frame(width: side, height: side)
    }
}

#if canImport(CoreImage)
/// A blurred backdrop behind the sharp photo: the blur runs on a small decode (a 200-pixel
/// target size), so it is cheap, and both versions share one download.
@MainActor
public struct BlurredBackdrop: View {
    let url: URL?

    public init(url: URL?) {
        self.url = url
    }

    public var body: some View {
        ZStack {
            CachedAsyncImage(request: ImageRequest(
                url: url,
                targetSize: PixelSize(width: 200, height: 200),
                processors: [ImageProcessors.GaussianBlur(radius: 12)]
            )) { image in
                image.resizable().scaledToFill()
            } placeholder: {
                Color.black
            }
            .ignoresSafeArea()

            CachedAsyncImage(url: url) { image in
                image.resizable().scaledToFit()
            } placeholder: {
                ProgressView()
            }
            .padding()
        }
    }
}
#endif

/// An animated sticker: GIF, APNG or animated WebP frames play in a bounded buffer, pause off
/// screen, and stay still with Reduce Motion.
@MainActor
public struct AnimatedSticker: View {
    let url: URL?

    public init(url: URL?) {
        self.url = url
    }

    public var body: some View {
        CachedAnimatedImage(url: url)
            .frame(width: 120, height: 120)
    }
}
#endif
