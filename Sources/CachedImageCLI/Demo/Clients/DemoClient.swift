import Foundation
import CachedImageCore

/// Where one image view was served from.
public enum LoadSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// A memory cache of decoded images: no I/O, no decoding.
    case memory
    /// Persistent storage on this device (a disk cache, files, or `URLCache`).
    case disk
    /// The network (a full download or a revalidation).
    case network
    /// Nothing was shown.
    case failed
}

/// What one image view showed: where it came from and the original bytes of the image on screen
/// (`nil` when nothing was shown), so the demo can compare them with what the server holds.
struct Shown: Sendable {
    var source: LoadSource
    var data: Data?

    static let failed = Shown(source: .failed, data: nil)
}

/// One way an app could load feed images. The demo creates a new client for each launch (same
/// directory, nothing else carried over) and calls ``load(_:url:)`` as cells appear.
protocol DemoClient: Sendable {
    /// Loads `image` from `url` as a cell appearing on screen would, decoding it for display.
    func load(_ image: FeedImage, url: URL) async -> Shown
    /// The app is about to be terminated: persist what must survive.
    func endLaunch() async
}

/// The decode step every approach shares, so none pays more for it than another: validate the
/// bytes as an image and decode them to fit the cell.
enum DemoDecoder {
    struct NotAnImage: Error {}

    static func decode(_ data: Data, cellPixels: Int, counter: DecodeCounter) throws -> DecodedImage {
        guard let info = ImageInfo(data: data) else { throw NotAnImage() }
        let image = try HeaderImageDecoder().decode(data, info: info, targetSize: PixelSize(width: cellPixels, height: cellPixels))
        counter.record(image)
        return image
    }
}
