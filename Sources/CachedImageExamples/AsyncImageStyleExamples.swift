#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// The three `AsyncImage` initialisers, on `CachedAsyncImage`: the migration is the type name.
@MainActor
public struct AsyncImageStyleExamples: View {
    let url = URL(string: "https://picsum.photos/id/10/800/600")

    public init() {}

    public var body: some View {
        VStack(spacing: 16) {
            // 1. init(url:scale:): the image at its own size, a neutral placeholder until then.
            CachedAsyncImage(url: url, scale: 2)

            // 2. init(url:scale:content:placeholder:)
            CachedAsyncImage(url: url) { image in
                image.resizable().scaledToFit()
            } placeholder: {
                ProgressView()
            }
            .frame(height: 160)

            // 3. init(url:scale:transaction:content:) with SwiftUI's own AsyncImagePhase.
            CachedAsyncImage(url: url, transaction: Transaction(animation: .easeInOut)) { phase in
                switch phase {
                case .success(let image):
                    image.resizable().scaledToFit().transition(.opacity)
                case .failure:
                    Image(systemName: "exclamationmark.triangle")
                case .empty:
                    ProgressView()
                @unknown default:
                    EmptyView()
                }
            }
            .frame(height: 160)
        }
    }
}
#endif
