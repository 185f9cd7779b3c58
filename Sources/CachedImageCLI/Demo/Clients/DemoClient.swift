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
    /// The view showed a stored copy at once, marked stale, while the server was asked about it
    /// (CachedImage's display rule); `data` is what it showed in the end.
    var staleFirst = false

    static let failed = Shown(source: .failed, data: nil)
}

/// One way an app could load feed images. The demo creates a new client for each launch (same
/// directory, nothing else carried over) and calls ``load(_:url:)`` as cells appear.
protocol DemoClient: Sendable {
    /// Loads `image` from `url` as a cell appearing on screen would, decoding it for display.
    func load(_ image: FeedImage, url: URL) async -> Shown
    /// The app is about to be terminated: persist what must survive.
    func endLaunch() async
    /// A cell of the fling (``FlingSession``) showing `image`, as the approach's view would.
    @MainActor func makeFlingView(_ image: FeedImage, url: URL, cellPixels: Int) -> any FlingView
    /// Decoded bytes the approach's own memory cache holds now (0 without one).
    var decodedCacheBytes: Int { get }
}

extension DemoClient {
    /// A `.task`-driven view that cancels its load when it disappears, as `AsyncImage` and a
    /// view's `.task` modifier do.
    @MainActor func makeFlingView(_ image: FeedImage, url: URL, cellPixels: Int) -> any FlingView {
        TaskFlingView(client: self, image: image, url: url, cancelsOnDisappear: true, cellPixels: cellPixels)
    }

    var decodedCacheBytes: Int { 0 }
}

/// The decode step every approach shares, so none pays more for it than another: validate the
/// bytes as an image and decode them to fit the cell.
enum DemoDecoder {
    struct NotAnImage: Error {}

    static func decode(_ data: Data, cellPixels: Int, counter: DecodeCounter) throws -> DecodedImage {
        guard let info = ImageInfo(data: data) else { throw NotAnImage() }
        let target = DecodingTarget(size: PixelSize(width: cellPixels, height: cellPixels))
        let bytes = info.pixelSize.map { DecodedImage.bitmapCost(of: target.decodedSize(of: $0)) } ?? 0
        let image = try counter.decoding(bytes: bytes) { try HeaderImageDecoder().decode(data, info: info, target: target) }
        counter.record(image)
        return image
    }

    /// The decoded bytes of `data` shown in a cell (what a view showing it holds).
    static func decodedBytes(of data: Data, cellPixels: Int) -> Int {
        guard let info = ImageInfo(data: data),
              let image = try? HeaderImageDecoder().decode(data, info: info, target: DecodingTarget(size: PixelSize(width: cellPixels, height: cellPixels)))
        else {
            return 0
        }
        return image.cost
    }
}
