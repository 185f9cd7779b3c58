#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// A photo's detail screen that shows an iPhone photo in HDR where the system can (iOS 17 and
/// later): the request asks for the HDR decode; the feed's thumbnails of the same URL stay SDR
/// (half the memory), in their own memory entries, from the same download.
@MainActor
public struct HDRPhotoDetail: View {
    let url: URL

    public init(url: URL) {
        self.url = url
    }

    public var body: some View {
        CachedAsyncImage(request: ImageRequest(url: url, options: [.decodeToHDR])) { image in
            // Built with the iOS 17 SDK or later, add `.allowedDynamicRange(.high)` here: SwiftUI
            // shows images in SDR unless told otherwise.
            image.resizable().scaledToFit()
        } placeholder: {
            ProgressView()
        }
    }
}
#endif
