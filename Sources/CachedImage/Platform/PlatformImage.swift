#if canImport(UIKit)
import UIKit

/// The platform's image type: `UIImage` here, `NSImage` on macOS.
public typealias PlatformImage = UIImage
#elseif canImport(AppKit)
import AppKit

/// The platform's image type: `NSImage` here, `UIImage` on iOS, tvOS, watchOS and visionOS.
public typealias PlatformImage = NSImage
#endif
