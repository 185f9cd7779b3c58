#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// The options Kingfisher and NukeUI users chain, on each `AsyncImage`-style form.
@MainActor
public struct ChainedOptionExamples: View {
    let url = URL(string: "https://picsum.photos/id/20/800/600")
    @State private var loaded = 0

    public init() {}

    public var body: some View {
        VStack(spacing: 16) {
            CachedAsyncImage(url: url)
                .fade(duration: 0.25)
                .priority(.high)
                .onSuccess { _ in loaded += 1 }

            CachedAsyncImage(url: url) { image in
                image.resizable().scaledToFit()
            } placeholder: {
                Color.gray.opacity(0.2)
            }
            .fade()
            .onStart { request in print("loading", request) }
            .onFailure { error in print("failed:", error) }
            .frame(height: 160)

            CachedAsyncImage(url: url) { phase in
                phase.image?.resizable().scaledToFit()
            }
            .onProgress { progress in print(progress.fraction ?? 0) }

            Text("\(loaded) loaded")
        }
    }
}
#endif
