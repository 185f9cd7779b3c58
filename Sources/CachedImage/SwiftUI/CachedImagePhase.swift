#if canImport(SwiftUI)
import CachedImageCore
import SwiftUI

/// What a `CachedAsyncImage` shows, with more than `AsyncImagePhase` says: download progress,
/// the image kept from the previous request, and a retry action for failure views.
///
/// ```swift
/// CachedAsyncImage(request: request) { (phase: CachedImagePhase) in
///     switch phase.state {
///     case .success(let image): image.resizable().scaledToFill()
///     case .failure: Button("Retry") { phase.retry() }
///     case .loading(let progress): ProgressView(value: progress.fraction ?? 0)
///     case .empty: Color.gray
///     }
/// }
/// ```
public struct CachedImagePhase {
    /// The loader's state, with the image ready for SwiftUI.
    public enum State {
        /// Nothing loaded yet (or cancelled).
        case empty
        /// Loading; the download's progress.
        case loading(ImageLoadingProgress)
        /// The image.
        case success(Image)
        /// Loading failed: usually an `ImagePipeline.Error`.
        case failure(any Error)
    }

    /// The loader's state.
    public let state: State
    /// The image to show: the loaded image, or (with `keepsPreviousImageWhileLoading()`) the
    /// previous request's image while this one loads. `nil` otherwise.
    public let image: Image?
    /// The pipeline's response for the loaded image (source, metrics), when ``state`` is `.success`.
    public let response: ImageResponse?
    private let retryAction: @MainActor () -> Void

    init(state: State, image: Image?, response: ImageResponse?, retry: @escaping @MainActor () -> Void) {
        self.state = state
        self.image = image
        self.response = response
        self.retryAction = retry
    }

    /// The error when loading failed, or, while a stale image stays on screen (``isStale``),
    /// why its revalidation failed (offline, a `5xx`): show it beside the image, not instead.
    public var error: (any Error)? {
        if case .failure(let error) = state { return error }
        return response?.revalidationError
    }

    /// `true` while ``state`` is `.success` with a stored image the server has not confirmed
    /// (``ImageResponse/isStale``): shown at once after a relaunch or offline, revalidated
    /// behind it; `false` once confirmed or replaced.
    public var isStale: Bool { response?.isStale ?? false }

    /// `true` while ``state`` is `.success` with a preview of a progressive JPEG still
    /// downloading (``ImageResponse/isPreview``); the final image follows.
    public var isPreview: Bool { response?.isPreview ?? false }

    /// Whether a placeholder is due: no image to show (not even a preview, a stale image or the
    /// previous request's) and no failure.
    public var showsPlaceholder: Bool { image == nil && error == nil }

    /// The download's progress while loading.
    public var progress: ImageLoadingProgress? {
        if case .loading(let progress) = state { return progress }
        return nil
    }

    /// Loads the image again (for a failure view's button).
    @MainActor
    public func retry() {
        retryAction()
    }

    /// The same phase as SwiftUI's `AsyncImagePhase`: `.success` whenever there is an image to
    /// show (a stale one too, whatever its revalidation's error), `.failure` on failure, `.empty`
    /// otherwise (including while loading).
    public var asyncImagePhase: AsyncImagePhase {
        if let image { return .success(image) }
        if let error { return .failure(error) }
        return .empty
    }
}
#endif
