/// The colour space a drawing processor (a resize, rounded corners, a circle crop) or a Core
/// Image filter renders its output in: the source's own where it can, so a Display P3 photo
/// from an iPhone stays Display P3 instead of being clipped to sRGB.
///
/// - An RGB source whose colour space can be drawn into (sRGB, Display P3, Adobe RGB, an ICC
///   profile the system can render to) keeps it.
/// - A wide-gamut RGB source whose space cannot be drawn into renders in Display P3, the
///   widest space every Apple platform draws into, rather than losing its gamut.
/// - Anything else (grey, CMYK, indexed, Lab, no colour space known) renders in sRGB, as
///   before: a processed image always has colour channels and can take transparency.
///
/// ```swift
/// ProcessingColorSpace.canvas(for: .init(model: .rgb, isWideGamut: true, supportsOutput: true)) // .source
/// ```
package enum ProcessingColorSpace: Sendable, Hashable {
    /// The source image's own colour space.
    case source
    /// Display P3.
    case displayP3
    /// sRGB.
    case sRGB

    /// What the decision needs to know about a source image's colour space.
    package struct SourceSpace: Sendable, Hashable {
        /// The colour model.
        package var model: Model
        /// Whether its gamut is wider than sRGB's (`CGColorSpaceIsWideGamutRGB`).
        package var isWideGamut: Bool
        /// Whether a bitmap context can draw into it (`CGColorSpace.supportsOutput`).
        package var supportsOutput: Bool

        package init(model: Model, isWideGamut: Bool, supportsOutput: Bool) {
            self.model = model
            self.isWideGamut = isWideGamut
            self.supportsOutput = supportsOutput
        }
    }

    /// A colour space's model, as far as the decision cares.
    package enum Model: Sendable, Hashable {
        case rgb, monochrome, cmyk, other
    }

    /// The space to render into for a source in `space` (`nil`: unknown).
    package static func canvas(for space: SourceSpace?) -> ProcessingColorSpace {
        guard let space, space.model == .rgb else { return .sRGB }
        if space.supportsOutput { return .source }
        return space.isWideGamut ? .displayP3 : .sRGB
    }
}
