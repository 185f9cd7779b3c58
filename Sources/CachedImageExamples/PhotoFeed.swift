#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// A photo as a feed API describes it: its URL and its size, so a row reserves its height
/// before the image arrives.
public struct FeedItem: Identifiable, Hashable, Sendable {
    public let id: Int
    public let url: URL?
    /// Width over height, from the API (`width` / `height` fields).
    public let aspectRatio: CGFloat

    public init(id: Int, url: URL?, aspectRatio: CGFloat) {
        self.id = id
        self.url = url
        self.aspectRatio = aspectRatio
    }
}

/// A feed of full-width photos in a scroll view. Each row is as wide as the screen and as tall
/// as its photo's aspect ratio says, so rows never jump when images arrive; each image decodes
/// at its row's size (the view reads the size it is laid out at: 393x295 points are 1179x885
/// pixels at 3x, about 4 MB, not the original's 48 MB). Rows scrolled away let their load go;
/// scrolling back finds the image in memory, in the first frame.
@MainActor
public struct PhotoFeed: View {
    let photos: [FeedItem]

    public init(photos: [FeedItem]) {
        self.photos = photos
    }

    public var body: some View {
        ScrollView {
            LazyVStack(spacing: 12) {
                ForEach(photos) { photo in
                    CachedAsyncImage(url: photo.url) { image in
                        image.resizable().scaledToFill()
                    } placeholder: {
                        Color.gray.opacity(0.15)
                    }
                    .fade(duration: 0.2)
                    // The row's size before the image: full width, the photo's height.
                    .aspectRatio(photo.aspectRatio, contentMode: .fit)
                    .frame(maxWidth: .infinity)
                    .clipped()
                }
            }
        }
    }
}
#endif
