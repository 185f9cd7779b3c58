#if canImport(SwiftUI)
import CachedImageCore
import SwiftUI

/// The options `CachedAsyncImage`'s chained modifiers set.
struct CachedAsyncImageOptions {
    var fadeDuration: TimeInterval?
    var priority: ImageRequest.Priority?
    var processors: [any ImageProcessing]?
    var callbacks = ImageLoader.Callbacks()
    /// `.placeholder(thumbHash:)` / `.placeholder(blurHash:)` (`CachedAsyncImage+Placeholders`).
    var hashPlaceholder: HashPlaceholder?
    /// `.progressivePreviews(_:)`: `true` on any link, `false` never; `nil` leaves the request's
    /// options as they are (by default, previews follow the link).
    var progressivePreviews: Bool?

    /// `request` with the chained priority, processors and preview option.
    func applied(to request: ImageRequest) -> ImageRequest {
        var request = request
        if let priority { request.priority = priority }
        if let processors { request.processors = processors }
        if let progressivePreviews {
            if progressivePreviews {
                request.options.insert(.showProgressivePreviews)
                request.options.remove(.skipProgressivePreviews)
            } else {
                request.options.remove(.showProgressivePreviews)
                request.options.insert(.skipProgressivePreviews)
            }
        }
        return request
    }
}

extension CachedAsyncImage {
    /// Fades images in over `duration` seconds when they arrive from disk or the network;
    /// memory hits (the first frame, a row scrolled back) appear at once.
    ///
    /// ```swift
    /// CachedAsyncImage(url: url) { image in image.resizable() } placeholder: { Color.gray }
    ///     .fade(duration: 0.25)
    /// ```
    public func fade(duration: TimeInterval = 0.25) -> CachedAsyncImage {
        var copy = self
        copy.options.fadeDuration = duration
        return copy
    }

    /// Loads at `priority` (visible images `.normal` or higher; the default is the request's).
    public func priority(_ priority: ImageRequest.Priority) -> CachedAsyncImage {
        var copy = self
        copy.options.priority = priority
        return copy
    }

    /// Runs `processors` on the decoded image, in order, off the main actor (replacing the
    /// request's own).
    public func processors(_ processors: [any ImageProcessing]) -> CachedAsyncImage {
        var copy = self
        copy.options.processors = processors
        return copy
    }

    /// Called when a load from disk or network starts (not for memory hits).
    public func onStart(_ action: @escaping @MainActor (ImageRequest) -> Void) -> CachedAsyncImage {
        var copy = self
        copy.options.callbacks.onStart = action
        return copy
    }

    /// Called once when the image is shown (memory hits included), never again because the
    /// view re-rendered or came back on screen.
    public func onSuccess(_ action: @escaping @MainActor (ImageResponse) -> Void) -> CachedAsyncImage {
        var copy = self
        copy.options.callbacks.onSuccess = action
        return copy
    }

    /// Called once when loading fails.
    public func onFailure(_ action: @escaping @MainActor (any Error) -> Void) -> CachedAsyncImage {
        var copy = self
        copy.options.callbacks.onFailure = action
        return copy
    }

    /// Called with the download's progress, at most 30 times a second.
    public func onProgress(_ action: @escaping @MainActor (ImageLoadingProgress) -> Void) -> CachedAsyncImage {
        var copy = self
        copy.options.callbacks.onProgress = action
        return copy
    }
}
#endif
