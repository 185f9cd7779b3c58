import Foundation

extension ImageLoader {
    /// What the loader shows.
    package enum Phase: Sendable {
        /// Nothing requested (a `nil` URL), the load was cancelled, or the view left the screen
        /// and its load or image was let go (it comes back when the view does).
        case empty
        /// Loading from disk or network; the progress of the download.
        case loading(Progress)
        /// The image, and where it came from (`.memory` for a synchronous hit). A stored copy
        /// shown while (or although) the server has not confirmed it is ``ImageResponse/isStale``.
        case success(ImageResponse)
        /// Loading failed: usually an ``ImagePipeline/Error``. It stays until ``ImageLoader/retry()``,
        /// another request, or, for a transient failure, a reason to ask again
        /// (``FailureRecovery``); never on a re-render or a quick return.
        case failure(any Error)

        /// The response when the phase is `.success`.
        package var response: ImageResponse? {
            if case .success(let response) = self { return response }
            return nil
        }

        /// The error when the phase is `.failure`, or, for a stale image kept on screen, why its
        /// revalidation failed (``ImageResponse/revalidationError``: offline, a `5xx`).
        package var error: (any Error)? {
            switch self {
            case .failure(let error): error
            case .success(let response): response.revalidationError
            case .empty, .loading: nil
            }
        }

        /// The progress when the phase is `.loading`.
        package var progress: Progress? {
            if case .loading(let progress) = self { return progress }
            return nil
        }

        var isLoading: Bool { progress != nil }
    }

    /// The download's progress (``ImageLoadingProgress``).
    package typealias Progress = ImageLoadingProgress

    /// Why the phase is `.empty` while the current request is set: what brings the image back.
    enum Pause: Sendable, Hashable {
        /// Cancelled or never started: ``ImageLoader/load(_:)`` starts it.
        case stopped
        /// The view left the screen and its load was cancelled: its next appearance restarts it.
        case suspended
        /// The view left the screen and its image was let go: its next appearance takes it back
        /// from the memory cache (or loads it again).
        case released
    }
}

/// Bytes received so far for an image's download: what `CachedImagePhase.progress` and the
/// views' `onProgress` report.
public struct ImageLoadingProgress: Sendable, Hashable {
    /// Body bytes received.
    public var completed: Int64
    /// Body bytes expected, when the server said (`Content-Length`).
    public var total: Int64?
    /// The image's size in pixels, as it shows, as soon as the first bytes of its body give it,
    /// long before the last one: reserve the view's space with its ``PixelSize/aspectRatio`` so
    /// nothing moves when the image arrives. `nil` until then. Processors may change the final
    /// image's size.
    ///
    /// ```swift
    /// CachedAsyncImage(request: request) { phase in
    ///     if let image = phase.image {
    ///         image.resizable().scaledToFit()
    ///     } else {
    ///         Color.gray.aspectRatio(phase.progress?.pixelSize.map { CGFloat($0.aspectRatio) } ?? 4 / 3, contentMode: .fit)
    ///     }
    /// }
    /// ```
    public var pixelSize: PixelSize?

    /// `completed` bytes of `total` (`nil`: the size is not known) of an image of `pixelSize`
    /// pixels (`nil`: not known yet).
    public init(completed: Int64, total: Int64?, pixelSize: PixelSize? = nil) {
        self.completed = completed
        self.total = total
        self.pixelSize = pixelSize
    }

    /// `completed / total` in `0...1`, or `nil` when the total is unknown.
    public var fraction: Double? {
        guard let total, total > 0 else { return nil }
        return min(1, max(0, Double(completed) / Double(total)))
    }
}
