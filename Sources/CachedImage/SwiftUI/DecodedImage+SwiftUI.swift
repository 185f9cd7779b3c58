#if canImport(SwiftUI)
import CachedImageCore
import SwiftUI

extension DecodedImage {
    /// The image as a SwiftUI `Image` at `scale` pixels per point (`nil` when the decoder made
    /// nothing displayable).
    public func swiftUIImage(scale: CGFloat = 1) -> Image? {
        if let cgImage {
            return Image(decorative: cgImage, scale: scale, orientation: .up)
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
#endif
