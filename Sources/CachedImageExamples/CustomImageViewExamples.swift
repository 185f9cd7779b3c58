#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// A view of your own over `CachedImageModel`: the model publishes, `.loadImage(from:into:)`
/// loads with `CachedAsyncImage`'s lifecycle.
@MainActor
public struct ProfileHeader: View {
    let url: URL?
    @StateObject private var avatar = CachedImageModel()

    public init(url: URL?) {
        self.url = url
    }

    public var body: some View {
        ZStack {
            if let image = avatar.image {
                image.resizable().scaledToFill()
            } else if avatar.phase.error != nil {
                Button("Retry") { avatar.retry() }
            } else {
                ProgressView(value: avatar.phase.progress?.fraction ?? 0)
            }
        }
        .frame(width: 64, height: 64)
        .clipShape(Circle())
        .loadImage(from: url, into: avatar)
    }
}
#endif
