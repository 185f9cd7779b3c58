import Foundation
@testable import CachedImageCore

/// The default decoder, counting how often the pipeline calls it and for which target sizes.
final class CountingDecoder: ImageDecoding {
    private let calls = Locked<[PixelSize?]>([])

    var decodeCount: Int { calls.withLock { $0.count } }
    var targetSizes: [PixelSize?] { calls.withLock { $0 } }

    func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
        calls.withLock { $0.append(targetSize) }
        return try HeaderImageDecoder().decode(data, info: info, targetPixelSize: targetSize)
    }
}
