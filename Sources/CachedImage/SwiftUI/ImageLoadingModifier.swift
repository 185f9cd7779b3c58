#if canImport(SwiftUI)
import CachedImageCore
import SwiftUI

/// The lifecycle `CachedAsyncImage` and ``SwiftUI/View/loadImage(_:into:)`` share, on one view:
/// `onAppear` counts an appearance and loads (a memory hit is published before the first frame
/// is drawn), `.task(id:)` loads a changed request or pipeline, `onDisappear` counts a
/// disappearance. The model is idempotent, so SwiftUI may repeat or reorder any of them.
struct ImageLifecycleModifier: ViewModifier {
    let model: CachedImageModel
    let request: ImageRequest
    let ownRequest: ImageRequest
    let pipeline: ImagePipeline
    /// The laid-out size, when the view records it: read when loading (layout has run by
    /// then), not when `body` ran.
    var sizing: LayoutSizingRecorder?
    /// The subtree's defaults, applied after the laid-out size (which they cap, never replace).
    var defaults = ImageRequestDefaults()

    func body(content: Content) -> some View {
        content
            .onAppear {
                model.didAppear()
                model.load(loadedRequest, ownRequest: ownRequest)
            }
            .task(id: LoadKey(request: request, pipeline: ObjectIdentifier(pipeline))) {
                model.load(loadedRequest, ownRequest: ownRequest)
            }
            .onDisappear { model.didDisappear() }
    }

    /// The request to load now: with the laid-out size when the view records one.
    private var loadedRequest: ImageRequest {
        sizing?.request(for: ownRequest, defaults: defaults) ?? request
    }

    /// Identifies one load: a new request or a new pipeline starts another.
    private struct LoadKey: Hashable, Sendable {
        var request: ImageRequest
        var pipeline: ObjectIdentifier
    }
}

/// Attaches a ``CachedImageModel`` to a view: the environment's pipeline, request defaults and
/// display scale, the view's laid-out size (as `CachedAsyncImage`'s: the layout decides, the
/// defaults cap it), and the shared lifecycle.
private struct ModelLoadingModifier: ViewModifier {
    @Environment(\.imagePipeline) private var pipeline
    @Environment(\.imageRequestDefaults) private var requestDefaults
    @Environment(\.displayScale) private var displayScale
    @StateObject private var layoutSizing = LayoutSizingRecorder()
    let model: CachedImageModel
    let request: ImageRequest

    func body(content: Content) -> some View {
        model.attach(to: pipeline, displayScale: displayScale)
        // A size in points becomes pixels at this view's display scale.
        let ownRequest = self.request.resolvingPointSize(displayScale: Double(displayScale))
        let requestDefaults = self.requestDefaults.resolvingPointSize(displayScale: Double(displayScale))
        let layoutSizing = self.layoutSizing
        layoutSizing.configure(
            for: model, request: ownRequest, displayScale: Double(displayScale), cap: pipeline.configuration.maximumDecodedPixelSize
        )
        return content
            .modifier(ImageLifecycleModifier(
                model: model, request: layoutSizing.request(for: ownRequest, defaults: requestDefaults), ownRequest: ownRequest,
                pipeline: pipeline, sizing: layoutSizing, defaults: requestDefaults
            ))
            .recordingLayoutProposal(into: layoutSizing, measuresWholeView: true)
    }
}

extension View {
    /// Loads `request` into `model` while this view is on screen, through the environment's
    /// ``SwiftUI/EnvironmentValues/imagePipeline`` and request defaults, with
    /// `CachedAsyncImage`'s lifecycle: a changed request loads, a view off screen lowers its
    /// priority and then lets go (``CachedImageModel/offscreenBehavior``), a success is never
    /// reloaded and a failure never retried by a re-render. A request with no `targetSize`
    /// decodes at the size this view is drawn at, as `CachedAsyncImage` does (the
    /// environment's defaults cap it, never replace it): a view of a fixed size (a `.frame`)
    /// at that size, a flexible one at the size its parent proposes. Until the image arrives
    /// the view's size is its placeholder's: give the view a frame, or a resizable placeholder,
    /// so the first decode is at the size the image will be drawn.
    ///
    /// ```swift
    /// @StateObject private var photo = CachedImageModel()
    ///
    /// var body: some View {
    ///     (photo.image ?? Image(systemName: "photo"))
    ///         .resizable()
    ///         .frame(width: 64, height: 64)
    ///         .loadImage(from: url, into: photo)
    /// }
    /// ```
    @MainActor
    public func loadImage(_ request: ImageRequest, into model: CachedImageModel) -> some View {
        modifier(ModelLoadingModifier(model: model, request: request))
    }

    /// Loads the image at `url` into `model` (see ``loadImage(_:into:)``); `nil` loads nothing.
    @MainActor
    public func loadImage(from url: URL?, into model: CachedImageModel) -> some View {
        loadImage(ImageRequest(url: url), into: model)
    }
}
#endif
