import Foundation

/// A request's processors as a value that compares and hashes by identifiers, so
/// ``ImageRequest`` stays `Hashable` and keys never depend on closures.
struct ProcessorChain: Sendable, Hashable {
    var processors: [any ImageProcessing]

    init(_ processors: [any ImageProcessing] = []) {
        self.processors = processors
    }

    /// The processors' identifiers, in order: what cache and in-flight keys hold.
    var identifiers: [String] {
        processors.map(\.identifier)
    }

    var isEmpty: Bool { processors.isEmpty }

    /// The chain with every processor given points (``DisplayScaledProcessing``) resolved at
    /// `displayScale`; `nil` when none is.
    func resolved(displayScale: Double) -> ProcessorChain? {
        guard processors.contains(where: { $0 is any DisplayScaledProcessing }) else { return nil }
        return ProcessorChain(processors.map { ($0 as? any DisplayScaledProcessing)?.resolved(displayScale: displayScale) ?? $0 })
    }

    /// Runs every processor in order.
    ///
    /// - Throws: ``ImagePipeline/Error/processingFailed(url:processor:reason:)`` naming the
    ///   processor that failed.
    func apply(to image: DecodedImage, url: URL?) throws -> DecodedImage {
        var image = image
        for processor in processors {
            do {
                image = try processor.process(image)
            } catch {
                let failure = ImageProcessingError(processor: processor, error: error)
                throw ImagePipeline.Error.processingFailed(url: url, processor: failure.processor, reason: failure.reason)
            }
        }
        return image
    }

    static func == (lhs: ProcessorChain, rhs: ProcessorChain) -> Bool {
        lhs.identifiers == rhs.identifiers
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(identifiers)
    }
}
