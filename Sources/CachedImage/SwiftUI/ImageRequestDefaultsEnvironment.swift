#if canImport(SwiftUI)
import CachedImageCore
import SwiftUI

/// The environment key behind ``SwiftUI/EnvironmentValues/imageRequestDefaults``.
private struct ImageRequestDefaultsKey: EnvironmentKey {
    static let defaultValue = ImageRequestDefaults()
}

extension EnvironmentValues {
    /// Request options every `CachedAsyncImage` in the subtree applies to its request where the
    /// request leaves them unset (target or maximum pixel size, cache options, priority,
    /// constrained-network policy). Default: none.
    public var imageRequestDefaults: ImageRequestDefaults {
        get { self[ImageRequestDefaultsKey.self] }
        set { self[ImageRequestDefaultsKey.self] = newValue }
    }
}

extension View {
    /// Sets default request options for every `CachedAsyncImage` in this subtree, so plain
    /// `CachedAsyncImage(url:)` call sites decode downsampled without being rewritten:
    ///
    /// ```swift
    /// ContentView()
    ///     .imageRequestDefaults(ImageRequestDefaults(maximumDecodedPixelSize: PixelSize(width: 1200, height: 1200)))
    /// ```
    public func imageRequestDefaults(_ defaults: ImageRequestDefaults) -> some View {
        environment(\.imageRequestDefaults, defaults)
    }
}
#endif
