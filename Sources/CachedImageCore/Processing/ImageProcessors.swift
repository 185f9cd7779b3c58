import Foundation

/// Built-in processors. The core defines the platform-independent ones (a closure, a
/// composition); the `CachedImage` module adds the drawing ones on Apple platforms
/// (`Resize`, `Crop`, `RoundedCorners`, `Circle`, `GaussianBlur`, `CoreImageFilter`).
public enum ImageProcessors {}

extension ImageProcessors {
    /// A processor made from a closure, identified by the `id` you give it (include every
    /// parameter the closure captures that changes its output).
    ///
    /// ```swift
    /// let watermark = ImageProcessors.Custom(id: "watermark-v2") { image in
    ///     try addWatermark(to: image)
    /// }
    /// ```
    public struct Custom: ImageProcessing {
        public let identifier: String
        private let body: @Sendable (DecodedImage) throws -> DecodedImage

        /// A processor that runs `body`; `id` names it in cache keys (stable across launches, distinct
        /// for distinct work).
        public init(id: String, _ body: @escaping @Sendable (DecodedImage) throws -> DecodedImage) {
            self.identifier = id
            self.body = body
        }

        public func process(_ image: DecodedImage) throws -> DecodedImage {
            try body(image)
        }
    }

    /// Several processors run in order as one; a failure names the processor that failed.
    /// A request's ``ImageRequest/processors`` are already composed this way; use a composition
    /// to pass a reusable chain around as one value.
    public struct Composition: ImageProcessing, DisplayScaledProcessing {
        /// The processors, in the order they run.
        public let processors: [any ImageProcessing]

        /// `processors`, applied in order.
        public init(_ processors: [any ImageProcessing]) {
            // Flatten nested compositions, so identifiers do not depend on grouping.
            self.processors = processors.flatMap { ($0 as? Composition)?.processors ?? [$0] }
        }

        public var identifier: String {
            processors.map(\.identifier).joined(separator: " > ")
        }

        package func resolved(displayScale: Double) -> Composition {
            Composition(processors.map { ($0 as? any DisplayScaledProcessing)?.resolved(displayScale: displayScale) ?? $0 })
        }

        public func process(_ image: DecodedImage) throws -> DecodedImage {
            var image = image
            for processor in processors {
                do {
                    image = try processor.process(image)
                } catch {
                    throw ImageProcessingError(processor: processor, error: error)
                }
            }
            return image
        }
    }
}
