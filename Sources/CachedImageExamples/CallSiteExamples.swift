#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// Every call-site form beyond `AsyncImage`'s three initialisers, compiled for iOS: trailing
/// closures never hit "ambiguous use of init".
@MainActor
public struct CallSiteExamples: View {
    let url: URL = URL(string: "https://picsum.photos/id/20/800/600")!
    let optionalURL: URL? = URL(string: "https://picsum.photos/id/21/800/600")

    public init() {}

    public var body: some View {
        VStack(spacing: 16) {
            // The image-only form tutorials use: content only, a default placeholder.
            CachedAsyncImage(url: url) { image in image.resizable().scaledToFit() }
                .frame(height: 120)

            // The same with an optional URL.
            CachedAsyncImage(url: optionalURL) { image in
                image.resizable().scaledToFill()
            }
            .frame(width: 80, height: 80)
            .clipped()

            // A request with a trailing closure that reads only phase.image: a CachedImagePhase.
            CachedAsyncImage(request: ImageRequest(url: url)) { phase in if let image = phase.image { image.resizable() } else { Color.gray } }
                .frame(height: 120)

            // ... reading phase.error too.
            CachedAsyncImage(request: ImageRequest(url: url, targetSize: CGSize(width: 100, height: 100))) { phase in
                if let image = phase.image {
                    image.resizable().scaledToFit()
                } else if phase.error != nil {
                    Image(systemName: "exclamationmark.triangle")
                } else {
                    ProgressView()
                }
            }

            // A request whose closure switches over SwiftUI's AsyncImagePhase.
            CachedAsyncImage(request: ImageRequest(url: optionalURL)) { phase in
                switch phase {
                case .success(let image): image.resizable()
                case .failure: Color.red
                case .empty: ProgressView()
                @unknown default: EmptyView()
                }
            }

            // A request with the image-only closure.
            CachedAsyncImage(request: ImageRequest(url: url, priority: .high)) { image in
                image.resizable().scaledToFit()
            }

            // A request alone: the image as loaded, decoded at display size (here in pixels).
            CachedAsyncImage(request: ImageRequest(url: url, targetPixelSize: PixelSize(width: 600, height: 600)))

            // A request with content and placeholder.
            CachedAsyncImage(request: ImageRequest(url: url)) { image in
                image.resizable()
            } placeholder: {
                ProgressView()
            }

            // A closure that fits every form gets AsyncImage's (AsyncImagePhase) one.
            CachedAsyncImage(url: url) { _ in Color.blue }

            // Explicit labels still pick one initialiser each.
            CachedAsyncImage(request: ImageRequest(url: url), phaseContent: { phase in
                Text(phase.progress.map { "\(Int(($0.fraction ?? 0) * 100))%" } ?? "")
            })
        }
        // Every CachedAsyncImage(url:) above that fits its image decodes within 1200x1200 pixels
        // (a view that fills keeps its own size, within the pipeline's cap).
        .imageRequestDefaults(ImageRequestDefaults(maximumDecodedPixelSize: PixelSize(width: 1200, height: 1200)))
    }
}
#endif
