#if canImport(SwiftUI) && canImport(ImageIO)
import CachedImageCore
import SwiftUI

/// Shows an image through the pipeline like ``CachedAsyncImage`` and, when it is an animated
/// GIF, APNG or WebP, plays it. Opt-in: `CachedAsyncImage` always shows the first frame.
///
/// - The first frame renders synchronously on a memory hit (no placeholder flash).
/// - Frames are decoded on demand off the main actor into a bounded buffer whose bytes count
///   against the memory cache (see `AnimatedImagePlayer`).
/// - Playback pauses while the view is off screen and never starts with Reduce Motion on
///   (the first frame is shown instead).
/// - Delays follow ``AnimatedImageInfo``: tiny delays play at 100 ms, like browsers.
///
/// ```swift
/// CachedAnimatedImage(url: stickerURL)
///     .frame(width: 120, height: 120)
/// ```
@MainActor
public struct CachedAnimatedImage<Placeholder: View>: View {
    @Environment(\.imagePipeline) private var pipeline
    @Environment(\.accessibilityReduceMotion) private var reduceMotion
    @StateObject private var player = AnimatedImagePlayer()
    @State private var isVisible = false

    private let request: ImageRequest
    private let scale: CGFloat
    private let contentMode: ContentMode
    private let placeholder: () -> Placeholder

    /// Plays the image `request` loads, scaled to fit or fill the view, with `placeholder` until
    /// its first frame is available.
    public init(
        request: ImageRequest,
        scale: CGFloat = 1,
        contentMode: ContentMode = .fit,
        @ViewBuilder placeholder: @escaping () -> Placeholder
    ) {
        self.request = request
        self.scale = scale
        self.contentMode = contentMode
        self.placeholder = placeholder
    }

    public var body: some View {
        // The player's frame once it plays; before that, the memory cache's first frame,
        // looked up synchronously so a memory hit never shows the placeholder.
        let frame = player.frame ?? pipeline.cachedImage(for: request)?.cgImage
        Group {
            if let frame {
                Image(decorative: frame, scale: scale, orientation: .up)
                    .resizable()
                    .aspectRatio(contentMode: contentMode)
            } else {
                placeholder()
            }
        }
        .onAppear {
            isVisible = true
            player.load(request, pipeline: pipeline, isPaused: reduceMotion)
        }
        .onDisappear {
            isVisible = false
            player.pause()
        }
        .onChange(of: request) { newRequest in
            player.load(newRequest, pipeline: pipeline, isPaused: reduceMotion || !isVisible)
        }
        .onChange(of: reduceMotion) { reduce in
            if reduce || !isVisible { player.pause() } else { player.resume() }
        }
    }
}

extension CachedAnimatedImage where Placeholder == Color {
    /// Plays the image at `url` with a neutral placeholder; see ``init(request:scale:contentMode:placeholder:)``.
    public init(url: URL?, scale: CGFloat = 1, contentMode: ContentMode = .fit) {
        self.init(request: ImageRequest(url: url), scale: scale, contentMode: contentMode) {
            Color.gray.opacity(0.2)
        }
    }
}
#endif
