#if canImport(UIKit) || canImport(AppKit)
import CachedImageCore
import CoreGraphics
#if canImport(UIKit)
import UIKit
#else
import AppKit
#endif

extension DecodedImage {
    /// The image as a `UIImage` / `NSImage` at `scale` pixels per point.
    ///
    /// Works for the default ImageIO decoder (a bitmap), for custom decoders that store a
    /// `PlatformImage`, and falls back to decoding ``data`` when a decoder kept only the bytes.
    public func platformImage(scale: CGFloat = 1) -> PlatformImage? {
        if let cgImage {
            #if canImport(UIKit)
            return UIImage(cgImage: cgImage, scale: scale, orientation: .up)
            #else
            let size = NSSize(width: CGFloat(cgImage.width) / scale, height: CGFloat(cgImage.height) / scale)
            return NSImage(cgImage: cgImage, size: size)
            #endif
        }
        if let image = image as? PlatformImage {
            return image
        }
        guard let data else { return nil }
        #if canImport(UIKit)
        return UIImage(data: data, scale: scale)
        #else
        return NSImage(data: data)
        #endif
    }
}
#endif
