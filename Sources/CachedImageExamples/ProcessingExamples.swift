#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// A round avatar: resized and cut to a circle once, off the main actor. Sizes are in points,
/// as the frame's: the view applies its display's scale (48 points are 144 pixels at 3x). The
/// memory cache keeps the small round image (keyed by URL, size and processors), so scrolling
/// back costs nothing.
@MainActor
public struct RoundAvatar: View {
    let url: URL?
    let side: CGFloat

    public init(url: URL?, side: CGFloat = 48) {
        self.url = url
        self.side = side
    }

    public var body: some View {
        let request = ImageRequest(url: url, processors: [
            ImageProcessors.Resize(size: CGSize(width: side, height: side), crop: true),
            ImageProcessors.Circle(),
        ])
        CachedAsyncImage(request: request) { image in
            image.resizable()
        } placeholder: {
            Circle().fill(Color.gray.opacity(0.3))
        }
        .frame(width: side, height: side)
    }
}

#if canImport(CoreImage)
/// A blurred backdrop behind the sharp photo: the blur runs on a small decode (64 points, 192
/// pixels at 3x), so it is cheap, and both versions share one download. The blur's radius is in
/// points too (4 points, 12 pixels at 3x).
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
                targetSize: CGSize(width: 64, height: 64),
                processors: [ImageProcessors.GaussianBlur(radius: 4)]
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
