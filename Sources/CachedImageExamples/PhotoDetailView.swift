#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// A 4000x3000 photo shown full screen, decoded downsampled to the screen's pixels (1170x878,
/// about 4 MB, on a 390x844-point phone at 3x, instead of 48 MB), with download progress and a
/// retry button.
@MainActor
public struct PhotoDetailView: View {
    let photo: Photo

    public init(photo: Photo) {
        self.photo = photo
    }

    public var body: some View {
        GeometryReader { geometry in
            CachedAsyncImage(request: request(fitting: geometry.size)) { phase in
                if let image = phase.image {
                    image.resizable().scaledToFit()
                } else if phase.error != nil {
                    Button("Retry") { phase.retry() }
                } else {
                    ProgressView(value: phase.progress?.fraction ?? 0)
                        .padding()
                }
            }
            .keepsPreviousImageWhileLoading()
            .frame(width: geometry.size.width, height: geometry.size.height)
        }
        .navigationTitle("Photo \(photo.id)")
    }

    /// The photo, decoded to fit the view (its size in points; the display's scale is applied
    /// for you), before the rows' thumbnails.
    private func request(fitting size: CGSize) -> ImageRequest {
        ImageRequest(url: photo.url, priority: .high, targetSize: size, contentMode: .aspectFit)
    }
}
#endif
