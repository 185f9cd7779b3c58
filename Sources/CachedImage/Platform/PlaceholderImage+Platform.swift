#if canImport(CoreGraphics)
import CachedImageCore
import CoreGraphics
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

extension PlaceholderImage {
    /// The placeholder as a `CGImage` (sRGB; alpha not premultiplied, as decoded), `nil` only
    /// for an empty image.
    package var cgImage: CGImage? {
        guard width > 0, height > 0, let provider = CGDataProvider(data: Data(rgba) as CFData),
              let colorSpace = CGColorSpace(name: CGColorSpace.sRGB)
        else { return nil }
        let alpha: CGImageAlphaInfo = hasAlpha ? .last : .noneSkipLast
        return CGImage(
            width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: width * 4,
            space: colorSpace, bitmapInfo: CGBitmapInfo(rawValue: alpha.rawValue), provider: provider,
            decode: nil, shouldInterpolate: true, intent: .defaultIntent
        )
    }

    #if canImport(UIKit) || canImport(AppKit)
    /// The placeholder as a `UIImage` / `NSImage` (stretch it over the view: it is tiny).
    package var platformImage: PlatformImage? {
        guard let cgImage else { return nil }
        #if canImport(UIKit)
        return UIImage(cgImage: cgImage)
        #else
        return NSImage(cgImage: cgImage, size: NSSize(width: width, height: height))
        #endif
    }
    #endif
}
#endif
