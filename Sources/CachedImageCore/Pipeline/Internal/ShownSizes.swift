import Foundation

/// The size each image was last shown at, by its key without a size: what a view that does not
/// know its own size yet (SwiftUI's first `body`, before layout) or that asks for another size
/// shows from memory until its own image arrives (``ImageJobs/otherSizeImage(for:)``).
///
/// Bounded: past ``capacity`` images it is cleared, which only costs those views a placeholder.
final class ShownSizes: Sendable {
    /// A target size and the content mode it was decoded in.
    struct Shape: Sendable, Hashable {
        var size: PixelSize
        var mode: ImageContentMode
    }

    private let shapes = Locked<[ImageCacheKey: Shape]>([:])
    /// How many images are remembered at most.
    let capacity: Int

    init(capacity: Int = 2_000) {
        self.capacity = capacity
    }

    /// `request` (as the caches key it) was shown; only sized requests are remembered.
    func record(_ request: ImageRequest) {
        guard let size = request.targetPixelSize else { return }
        let shape = Shape(size: size, mode: request.contentMode)
        let key = Self.key(request)
        shapes.withLock { shapes in
            guard shapes[key] != shape else { return }
            if shapes.count >= capacity { shapes.removeAll() }
            shapes[key] = shape
        }
    }

    /// The shape `request`'s image (at any size) was last shown at.
    func shape(for request: ImageRequest) -> Shape? {
        let key = Self.key(request)
        return shapes.withLock { $0[key] }
    }

    /// `request`'s memory key without its size.
    private static func key(_ request: ImageRequest) -> ImageCacheKey {
        ImageCacheKey(cacheKey: request.cacheKey, processorIdentifiers: request.processorChain.identifiers)
    }
}
