#if canImport(SwiftUI)
import CachedImageCore
import SwiftUI

extension DecodedImage {
    /// The image as a SwiftUI `Image` at `scale` pixels per point (`nil` when the decoder made
    /// nothing displayable). Accessible as `AsyncImage`'s image is: an image element VoiceOver
    /// reaches, named by the app's `.accessibilityLabel`; `decorative: true` hides it.
    ///
    /// The default scale, 1, is one pixel per point: an image decoded at 3x for a 100-point view
    /// is 300 points wide unless it is `.resizable()`. Pass the display's scale
    /// (`@Environment(\.displayScale)`) to show it at its size in points.
    public func swiftUIImage(scale: CGFloat = 1, decorative: Bool = false) -> Image? {
        if let cgImage {
            return decorative ? Image(decorative: cgImage, scale: scale, orientation: .up) : Image(accessible: cgImage, scale: scale)
        }
        #if canImport(UIKit)
        return platformImage(scale: scale).map { Image(uiImage: $0) }
        #elseif canImport(AppKit)
        return platformImage(scale: scale).map { Image(nsImage: $0) }
        #else
        return nil
        #endif
    }
}

extension Image {
    /// A bitmap shown as `AsyncImage` shows its image (`Image(uiImage:)`): an image element
    /// VoiceOver reaches, labelled by the app's `.accessibilityLabel`, never hidden as decorative.
    init(accessible cgImage: CGImage, scale: CGFloat) {
        #if canImport(UIKit)
        self.init(uiImage: UIImage(cgImage: cgImage, scale: scale, orientation: .up))
        #elseif canImport(AppKit)
        self.init(nsImage: NSImage(cgImage: cgImage, size: NSSize(width: CGFloat(cgImage.width) / scale, height: CGFloat(cgImage.height) / scale)))
        #else
        self.init(cgImage, scale: scale, orientation: .up, label: Text(verbatim: ""))
        #endif
    }
}
#endif
