#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// A `List` of 1,000 thumbnails that prefetches the rows about to scroll into view, and opens a
/// large, downsampled photo on tap.
@MainActor
public struct PhotoListView: View {
    let photos: [Photo]
    /// Warms the disk cache for upcoming rows at low priority (visible rows always go first).
    @State private var prefetcher = ImagePrefetcher()

    public init(photos: [Photo] = Photo.feed) {
        self.photos = photos
    }

    public var body: some View {
        NavigationView {
            List(photos) { photo in
                NavigationLink(destination: PhotoDetailView(photo: photo)) {
                    PhotoRow(photo: photo)
                }
                .onAppear { prefetcher.startPrefetching(with: thumbnails(after: photo)) }
                .onDisappear { prefetcher.stopPrefetching(with: [thumbnail(photo)]) }
            }
            .navigationTitle("Photos")
        }
    }

    /// The next ten rows' thumbnail requests.
    private func thumbnails(after photo: Photo) -> [ImageRequest] {
        photos.dropFirst(photo.id + 1).prefix(10).map(thumbnail)
    }
}

/// One row: a 64-point thumbnail, decoded at 192x192 pixels (64 points at 3x) instead of 4000x3000.
@MainActor
struct PhotoRow: View {
    let photo: Photo

    var body: some View {
        HStack {
            CachedAsyncImage(request: thumbnail(photo)) { image in
                image.resizable().scaledToFill()
            } placeholder: {
                Color.gray.opacity(0.2)
            }
            .frame(width: 64, height: 64)
            .clipped()
            Text("Photo \(photo.id)")
        }
    }
}

/// The same request for a row and its prefetch, so `stopPrefetching(with:)` finds the prefetch.
/// The prefetcher fills the disk cache only (the original bytes, nothing decoded): a row decodes
/// its thumbnail from disk, or joins the prefetch's download while it runs.
/// 64x64 points (192x192 pixels at 3x; the display's scale is applied for you).
func thumbnail(_ photo: Photo) -> ImageRequest {
    ImageRequest(url: photo.url, targetSize: CGSize(width: 64, height: 64))
}
#endif
