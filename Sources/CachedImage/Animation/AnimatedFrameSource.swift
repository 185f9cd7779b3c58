#if canImport(ImageIO)
import CachedImageCore
import CoreGraphics
import Foundation
import ImageIO

/// Decodes the frames of an animated image on demand, downsampled like the request's first
/// frame: the ImageIO side of core's `AnimationPlayer`. One per player and image; the player's
/// `SerialFrameDecoder` calls ``frame(at:)`` on one serial queue, so the `CGImageSource` is
/// never used from two threads.
final class AnimatedFrameSource: AnimationFrameSource, @unchecked Sendable {
    let info: AnimatedImageInfo
    private let source: CGImageSource
    private let maxPixelSize: Int?

    init?(data: Data, target: DecodingTarget) {
        guard let info = AnimatedImageInfo(data: data),
              let source = CGImageSourceCreateWithData(data as CFData, [kCGImageSourceShouldCache: false] as CFDictionary),
              CGImageSourceGetCount(source) >= info.frameCount
        else {
            return nil
        }
        self.info = info
        self.source = source
        // The first frame's size: the request's content mode and the pipeline's cap.
        maxPixelSize = target.longestSide(forSource: ImageInfo(data: data)?.pixelSize)
    }

    /// Frame `index`, decoded now (on the player's decoding queue).
    func frame(at index: Int) -> SendableFrame? {
        var options: [CFString: Any] = [
            kCGImageSourceCreateThumbnailFromImageAlways: true,
            kCGImageSourceCreateThumbnailWithTransform: true,
            kCGImageSourceShouldCacheImmediately: true,
        ]
        if let maxPixelSize {
            options[kCGImageSourceThumbnailMaxPixelSize] = maxPixelSize
        }
        return CGImageSourceCreateThumbnailAtIndex(source, index, options as CFDictionary).map(SendableFrame.init)
    }

    func cost(of frame: SendableFrame) -> Int { frame.cost }
}

/// A decoded frame crossing from the decoding task to the main actor (`CGImage` is immutable).
struct SendableFrame: @unchecked Sendable {
    let cgImage: CGImage

    /// The bytes the bitmap occupies.
    var cost: Int { cgImage.bytesPerRow * cgImage.height }
}
#endif
