#if canImport(SwiftUI)
import CachedImageCore
import SwiftUI

/// `AsyncImage`'s three forms for an image the app stored itself with
/// ``ImagePipeline/storeImageData(_:forKey:)`` (``ImageRequest/init(key:priority:targetSize:contentMode:options:processors:)``):
/// shown from memory or disk, never downloaded. A key with nothing stored under it is a failure
/// (``ImagePipeline/Error/notCached(_:)``), so the placeholder stays. A view already on screen
/// keeps what it shows when the key is stored (or replaced) later: give it a new identity,
/// `.id(version)`, to read the caches again, or use ``init(key:scale:transaction:phaseContent:)``
/// and `phase.retry()`.
///
/// ```swift
/// try pipeline.storeImageData(jpegData, forKey: "avatar-\(user.id)")
///
/// CachedAsyncImage(key: "avatar-\(user.id)") { image in
///     image.resizable().scaledToFill()
/// } placeholder: {
///     Circle().fill(.gray)
/// }
/// ```
extension CachedAsyncImage {
    /// Shows the image stored under `key`, with a neutral placeholder until then (and when
    /// nothing is stored), like ``init(url:scale:)``. A `nil` key shows the placeholder.
    public init(key: String?, scale: CGFloat = 1) where Content == Image {
        self.init(request: Self.request(forKey: key), scale: scale)
    }

    /// Shows `content` with the image stored under `key`, and `placeholder` until then (and when
    /// nothing is stored), like ``init(url:scale:content:placeholder:)``.
    public init<I: View, P: View>(
        key: String?,
        scale: CGFloat = 1,
        @ViewBuilder content: @escaping (Image) -> I,
        @ViewBuilder placeholder: @escaping () -> P
    ) where Content == _ConditionalContent<I, P> {
        self.init(request: Self.request(forKey: key), scale: scale, content: content, placeholder: placeholder)
    }

    /// Renders each phase of loading the image stored under `key`, like
    /// ``init(url:scale:transaction:content:)``.
    public init(
        key: String?,
        scale: CGFloat = 1,
        transaction: Transaction = Transaction(),
        @ViewBuilder content: @escaping (AsyncImagePhase) -> Content
    ) {
        self.init(request: Self.request(forKey: key), scale: scale, transaction: transaction, content: content)
    }

    /// The image stored under `key` and a neutral placeholder until then (and when nothing is
    /// stored), like ``init(url:scale:content:)``.
    @_disfavoredOverload
    public init<I: View>(
        key: String?,
        scale: CGFloat = 1,
        @ViewBuilder content: @escaping (Image) -> I
    ) where Content == _ConditionalContent<I, Color> {
        self.init(request: Self.request(forKey: key), scale: scale, content: content)
    }

    /// Renders a ``CachedImagePhase`` of the image stored under `key`: its `retry()` reads the
    /// caches again (once the app has stored the image, say).
    ///
    /// Disfavoured: a closure that also compiles with ``init(key:scale:transaction:content:)``
    /// gets `AsyncImage`'s phase, as with a URL; one that calls `phase.retry()` lands here.
    @_disfavoredOverload
    public init(
        key: String?,
        scale: CGFloat = 1,
        transaction: Transaction = Transaction(),
        @ViewBuilder phaseContent: @escaping (CachedImagePhase) -> Content
    ) {
        self.init(request: Self.request(forKey: key), scale: scale, transaction: transaction, phaseContent: phaseContent)
    }

    private static func request(forKey key: String?) -> ImageRequest {
        key.map { ImageRequest(key: $0) } ?? ImageRequest(url: nil)
    }
}
#endif
