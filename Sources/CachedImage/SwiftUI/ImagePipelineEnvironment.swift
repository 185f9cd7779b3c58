#if canImport(SwiftUI)
import CachedImageCore
import SwiftUI

/// The environment key behind ``SwiftUI/EnvironmentValues/imagePipeline``.
private struct ImagePipelineKey: EnvironmentKey {
    static let defaultValue = ImagePipeline.shared
}

extension EnvironmentValues {
    /// The pipeline `CachedAsyncImage` loads through. Default: `ImagePipeline.shared`.
    public var imagePipeline: ImagePipeline {
        get { self[ImagePipelineKey.self] }
        set { self[ImagePipelineKey.self] = newValue }
    }
}

extension View {
    /// Makes every `CachedAsyncImage` in this view's subtree load through `pipeline`.
    ///
    /// ```swift
    /// ContentView()
    ///     .imagePipeline(ImagePipeline(configuration: configuration))
    /// ```
    public func imagePipeline(_ pipeline: ImagePipeline) -> some View {
        environment(\.imagePipeline, pipeline)
    }
}
#endif
