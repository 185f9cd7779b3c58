import Foundation
import CachedImageCore
import ToolSupport

/// Counts the decodes a client performs and the decoded bytes they produce (the memory a decoded
/// bitmap takes), so work a memory cache of decoded images saves shows as work not done.
final class DecodeCounter: Sendable {
    private let totals = Protected((count: 0, bytes: 0))
    private let inFlight = Protected(0)

    /// Decoded bytes being produced right now (decodes begun and not yet ended).
    var inFlightBytes: Int { inFlight.withLock { $0 } }

    /// Runs a decode expected to allocate `bytes`, counting them in flight meanwhile.
    func decoding<T>(bytes: Int, _ body: () throws -> T) rethrows -> T {
        inFlight.withLock { $0 += bytes }
        defer { inFlight.withLock { $0 -= bytes } }
        return try body()
    }

    /// Decodes and decoded bytes so far.
    var snapshot: (count: Int, bytes: Int) {
        totals.withLock { $0 }
    }

    func record(_ image: DecodedImage) {
        totals.withLock { value in
            value.count += 1
            value.bytes += image.cost
        }
    }
}

/// The pipeline's decoder, wrapped to count its decodes in a ``DecodeCounter``.
struct CountingDecoder: TargetedImageDecoding {
    let base: any ImageDecoding
    let counter: DecodeCounter

    func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
        try decode(data, info: info, target: DecodingTarget(size: targetSize, contentMode: .aspectFit))
    }

    func decode(_ data: Data, info: ImageInfo, target: DecodingTarget) throws -> DecodedImage {
        let bytes = info.pixelSize.map { DecodedImage.bitmapCost(of: target.decodedSize(of: $0)) } ?? 0
        let image = try counter.decoding(bytes: bytes) { try base.decode(data, info: info, target: target) }
        counter.record(image)
        return image
    }

    /// The wrapped decoder's answer: counting must not send cheap decodes to a decoding thread.
    func isExpensive(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) -> Bool {
        base.isExpensive(data, info: info, targetPixelSize: targetSize)
    }
}
