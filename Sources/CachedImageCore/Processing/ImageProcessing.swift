import Foundation

/// Transforms a decoded image: resizing, cropping, rounding corners, blurring. The pipeline runs
/// a request's processors in order, off the main actor, right after decoding, and caches what
/// they produce (in memory, and on disk with a ``ImagePipeline/DiskCachePolicy`` that keeps
/// processed images).
///
/// A processor's ``identifier`` is part of every cache and in-flight key: two requests whose
/// processors have the same identifiers share one decode and one processing pass, and requests
/// whose processors differ never share a result. Make it stable across launches and include
/// every parameter that changes the output.
///
/// ```swift
/// struct Grayscale: ImageProcessing {
///     var identifier: String { "com.example.grayscale" }
///     func process(_ image: DecodedImage) throws -> DecodedImage { ... }
/// }
/// let request = ImageRequest(url: url, processors: [Grayscale()])
/// ```
public protocol ImageProcessing: Sendable {
    /// Identifies what the processor does, with its parameters (for example
    /// `"cachedimage.resize(300x300,fill,crop)"`). Stable across launches: processed images are
    /// kept on disk under it.
    var identifier: String { get }

    /// Returns the processed image. Called on a background task, never on the main actor.
    ///
    /// - Throws: Any error; the pipeline reports it as
    ///   ``ImagePipeline/Error/processingFailed(url:processor:reason:)`` naming this processor.
    func process(_ image: DecodedImage) throws -> DecodedImage
}

/// Thrown by a processor (or a composition) to say which processor failed and why. The pipeline
/// turns it into ``ImagePipeline/Error/processingFailed(url:processor:reason:)``.
public struct ImageProcessingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The ``ImageProcessing/identifier`` of the processor that failed.
    public var processor: String
    /// Why it failed.
    public var reason: String

    /// `processor` (its identifier) failed for `reason`.
    public init(processor: String, reason: String) {
        self.processor = processor
        self.reason = reason
    }

    /// Wraps any error thrown by `processor`, keeping the innermost processor's name.
    public init(processor: any ImageProcessing, error: any Error) {
        if let named = error as? ImageProcessingError {
            self = named
        } else {
            self.init(processor: processor.identifier, reason: String(describing: error))
        }
    }

    public var description: String {
        "Processor \(processor) failed: \(reason)"
    }
}
