import Foundation

/// A processor given lengths in points (a corner radius, a size to resize to), as apps lay views
/// out: its pixels depend on the display's scale. A view resolves it at its own display's scale
/// when it resolves its request's points (``ImageRequest/targetSize``); elsewhere the main
/// screen's scale applies from the moment the processor is made (1 where there is no screen).
/// The resolved pixels are in the processor's identifier, so 2x and 3x results are two cache
/// entries.
package protocol DisplayScaledProcessing: ImageProcessing {
    /// This processor with its points turned into pixels at `displayScale` pixels per point.
    func resolved(displayScale: Double) -> Self
}

/// A length given to a processor, in points or in pixels, with the pixels it stands for.
///
/// ```swift
/// ProcessingLength(points: 8).resolved(displayScale: 3).pixels  // 24
/// ProcessingLength(pixels: 8).resolved(displayScale: 3).pixels  // 8
/// ```
package struct ProcessingLength: Sendable, Hashable {
    /// The length in points; `nil` when it was given in pixels.
    package let points: Double?
    /// The pixels it stands for: `points` times a display's scale, or the pixels given.
    package private(set) var pixels: Double

    /// A length in points, in pixels at the main screen's scale until a view resolves it.
    package init(points: Double) {
        self.points = points
        self.pixels = points * (MainScreen.scale ?? 1)
    }

    /// A length in pixels, whatever the screen.
    package init(pixels: Double) {
        self.points = nil
        self.pixels = pixels
    }

    /// This length at `displayScale` (a positive, finite scale; any other changes nothing).
    package func resolved(displayScale: Double) -> ProcessingLength {
        guard let points, displayScale > 0, displayScale.isFinite else { return self }
        var resolved = self
        resolved.pixels = points * displayScale
        return resolved
    }
}

extension PixelSize {
    /// `points` at the main screen's scale (1 where there is none), at least 1x1 pixels: the
    /// pixel size a processor given a size in points starts with.
    package static func processing(points: CGSize, scale: Double? = nil) -> PixelSize {
        PixelSize(points: points, scale: scale ?? MainScreen.scale ?? 1) ?? PixelSize(width: 1, height: 1)
    }
}
