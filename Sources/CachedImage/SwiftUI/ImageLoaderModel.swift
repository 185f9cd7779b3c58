#if canImport(SwiftUI)
import CachedImageCore
import SwiftUI

/// Publishes an ``ImageLoader``'s changes to SwiftUI, applying the view's transaction.
@MainActor
final class ImageLoaderModel: ObservableObject {
    let loader: ImageLoader
    private var transaction = Transaction()
    private var fadeDuration: TimeInterval?
    private var isConnected = false

    nonisolated init() {
        loader = ImageLoader()
    }

    /// Brings the loader in line with the view's current environment and options. Changes
    /// nothing SwiftUI observes, so it is safe to call from `body`.
    func configure(
        pipeline: ImagePipeline,
        transaction: Transaction,
        keepsPreviousImage: Bool,
        disappearBehavior: ImageLoader.DisappearBehavior,
        reportsProgress: Bool,
        fadeDuration: TimeInterval? = nil,
        callbacks: ImageLoader.Callbacks = ImageLoader.Callbacks()
    ) {
        if !isConnected {
            isConnected = true
            loader.onChange = { [weak self] phase in self?.publish(phase) }
        }
        self.transaction = transaction
        self.fadeDuration = fadeDuration
        loader.callbacks = callbacks
        loader.pipeline = pipeline
        loader.keepsPreviousImage = keepsPreviousImage
        loader.disappearBehavior = disappearBehavior
        loader.reportsProgress = reportsProgress
        #if canImport(UIKit) && !os(watchOS)
        AppLifecycleObserver.install(for: pipeline)
        #endif
    }

    /// What to render for `request` now (a memory hit shows in the very first frame), at
    /// `scale` pixels per point; an image decoded smaller than its source keeps its natural
    /// size when `ownRequest` (the caller's, before subtree defaults) asked for no size.
    func phase(for request: ImageRequest, ownRequest: ImageRequest, scale: CGFloat) -> CachedImagePhase {
        let scaleOf = { (image: DecodedImage) in CGFloat(ImageDisplayScale.scale(Double(scale), for: image, request: ownRequest)) }
        let phase = loader.phase(for: request)
        let retry: @MainActor () -> Void = { [weak self] in self?.loader.retry() }
        switch phase {
        case .empty, .loading:
            let previous = loader.previousResponse(for: request)
            let state: CachedImagePhase.State = phase.progress.map { .loading($0) } ?? .empty
            return CachedImagePhase(state: state, image: previous.flatMap { $0.image.swiftUIImage(scale: scaleOf($0.image)) }, response: nil, retry: retry)
        case .success(let response):
            guard let image = response.image.swiftUIImage(scale: scaleOf(response.image)) else {
                let error = ImagePipeline.Error.decodingFailed(url: response.request.url, underlying: NoDisplayableImage())
                return CachedImagePhase(state: .failure(error), image: nil, response: nil, retry: retry)
            }
            return CachedImagePhase(state: .success(image), image: image, response: response, retry: retry)
        case .failure(let error):
            return CachedImagePhase(state: .failure(error), image: nil, response: nil, retry: retry)
        }
    }

    func load(_ request: ImageRequest) {
        loader.load(request)
    }

    private func publish(_ phase: ImageLoader.Phase) {
        var transaction = self.transaction
        if let fadeDuration, fadeDuration > 0, ImageLoader.fadesIn(to: phase) {
            transaction.animation = .easeInOut(duration: fadeDuration)
        }
        withTransaction(transaction) {
            objectWillChange.send()
        }
    }
}

extension ImageLoaderModel {
    /// The decoder returned an image SwiftUI cannot display (it holds no `CGImage`).
    struct NoDisplayableImage: Error, CustomStringConvertible {
        var description: String { "the decoder produced no displayable image" }
    }
}
#endif
