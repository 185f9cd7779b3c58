import Foundation

/// An image's first frame and, when it is animated, the bytes it was decoded from: everything
/// an animated image player needs, from one fetch.
package struct AnimatedImageResponse: Sendable {
    /// The first frame, decoded and processed like ``ImagePipeline/image(for:)-(ImageRequest)``
    /// would (and stored in the memory cache the same way), with its source and metrics.
    package var image: ImageResponse
    /// The bytes the first frame was decoded from, when they are an animation; `nil` for a still
    /// image (and for a request with processors: their output is a still image).
    package var data: Data?
    /// The animation's timing, when ``data`` is set.
    package var animation: AnimatedImageInfo?
}

extension ImagePipeline {
    /// Loads `request`'s first frame and, when the image is animated (GIF, APNG, WebP), its
    /// bytes, with one fetch: the bytes come from the pipeline's data stage (disk cache, else one
    /// download, shared with any other request for them), the first frame is decoded from those
    /// same bytes, so an animation plays exactly what was decoded and a still image is read once.
    ///
    /// Requests that keep bytes off the disk (`Authorization`, `no-store`, `.skipDiskCache`)
    /// download once too. An animation's bytes are kept in the memory cache next to its first
    /// frame (same lifetime, cost = their size), so showing it again needs no read at all.
    ///
    /// - Throws: ``ImagePipeline/Error``, or `CancellationError`.
    package func animatedImage(for request: ImageRequest) async throws -> AnimatedImageResponse {
        let task = ImageTask(request: request, startDate: configuration.clock.now)
        return try await jobs.animatedImage(task)
    }
}
