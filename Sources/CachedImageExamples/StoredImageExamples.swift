#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// Images the app stored itself (`storeImageData(_:forKey:)`), in `AsyncImage`'s three forms:
/// shown from memory or disk, never downloaded.
@MainActor
public struct StoredImageExamples: View {
    let userID: String
    @Environment(\.imagePipeline) private var pipeline

    public init(userID: String) {
        self.userID = userID
    }

    /// Keeps the photo the user picked: views that load the key from now on show it.
    public func save(_ jpegData: Data) throws {
        try pipeline.storeImageData(jpegData, forKey: "avatar-\(userID)")
    }

    public var body: some View {
        VStack(spacing: 16) {
            CachedAsyncImage(key: "avatar-\(userID)")

            CachedAsyncImage(key: "avatar-\(userID)") { image in
                image.resizable().scaledToFill()
            } placeholder: {
                Circle().fill(.gray.opacity(0.3))   // also when nothing is stored yet
            }
            .frame(width: 80, height: 80)
            .clipShape(Circle())

            CachedAsyncImage(key: "avatar-\(userID)", transaction: Transaction(animation: .default)) { phase in
                switch phase {
                case .success(let image): image.resizable().scaledToFit()
                case .failure: Image(systemName: "person.crop.circle")
                case .empty: ProgressView()
                @unknown default: EmptyView()
                }
            }
            .frame(height: 80)

            // With CachedImagePhase: retry() reads the caches again once the image is stored.
            CachedAsyncImage(key: "avatar-\(userID)") { phase in
                if let image = phase.image {
                    image.resizable().scaledToFit()
                } else {
                    Button("Reload") { phase.retry() }
                }
            }
            .frame(height: 80)
        }
    }
}
#endif
