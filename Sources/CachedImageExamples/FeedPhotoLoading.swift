#if canImport(UIKit)
import CachedImage
import UIKit

extension CachedImageViewLoader {
    /// Shows a feed photo in a reused cell (see `PhotoCell`): its BlurHash painted at once, then
    /// the progressive JPEG scan by scan, then the photo.
    public func showFeedPhoto(_ url: URL?, blurHash: String?) {
        placeholderHash = blurHash.map(HashPlaceholder.blurHash) // before load(_:)
        load(ImageRequest(url: url, options: [.showProgressivePreviews]))
    }
}
#endif
