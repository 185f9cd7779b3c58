#if canImport(SwiftUI)
import CachedImageCore
import SwiftUI

/// The environment key behind ``SwiftUI/EnvironmentValues/imagePipeline``: read each time,
/// so a pipeline the app sets as ``ImagePipeline/shared`` at launch is the default.
private struct ImagePipelineKey: EnvironmentKey {
    static var defaultValue: ImagePipeline { .shared }
}

extension EnvironmentValues {
    /// The pipeline `CachedAsyncImage` loads through. Default: ``ImagePipeline/shared`` (the
    /// app's replacement, when it set one at launch).
    public var imagePipeline: ImagePipeline {
        get { self[ImagePipelineKey.self] }
        set { self[ImagePipelineKey.self] = newValue }
    }
}

extension View {
    /// Makes every `CachedAsyncImage` in this view's subtree load through `pipeline`.
    ///
    /// Create the pipeline once and keep it (a `static let`, an app-level property or `@State`),
    /// never in `body`:
    ///
    /// ```swift
    /// extension ImagePipeline {
    ///     static let feed: ImagePipeline = {
    ///         var configuration = ImagePipeline.Configuration()
    ///         configuration.memoryCacheCostLimit = 200 << 20
    ///         return ImagePipeline(configuration: configuration)
    ///     }()
    /// }
    ///
    /// ContentView()
    ///     .imagePipeline(.feed)
    /// ```
    ///
    /// A pipeline is a cache: each instance has its own memory cache, and a view's load is keyed
    /// to the pipeline it uses. `.imagePipeline(ImagePipeline(configuration: ...))` written in
    /// `body` makes a new, empty pipeline every time `body` runs, so every image reloads and
    /// flashes its placeholder.
    public func imagePipeline(_ pipeline: ImagePipeline) -> some View {
        environment(\.imagePipeline, pipeline)
    }
}
#endif
