import Foundation

/// What a decode should produce: the size an image is shown at and how it covers it, plus the
/// pipeline's cap on images shown without a known size. The rule every decoder shares, so that
/// sizes are the same on every platform and tested on Linux.
///
/// - `.aspectFill` (the default for requests): the result covers ``size`` in both dimensions
///   (a 4000x3000 photo for a 192x192 cell decodes to 256x192, sharp after `scaledToFill()`).
/// - `.aspectFit`: the result fits inside ``size`` (a detail view that letterboxes).
/// - Never upscales: an image already smaller keeps its size.
/// - ``maximumSize`` (the pipeline's ``ImagePipeline/Configuration/maximumDecodedPixelSize``) is
///   a fit cap: it bounds, as an aspect fit, an image decoded for no size or to fit a size. A
///   fill target is the view's own size (each side taken up to the cap's, the most a screen
///   shows): the result covers it.
/// - Fill is bounded: the part of a fill that overflows the view is clipped, never seen, so a
///   fill decode holds at most 1.5 times the view's pixels, unless it
///   would then be drawn more than 1.5 times enlarged; and never more pixels than the cap. An
///   image much wider or taller than its view (a landscape photo filling a full-screen
///   portrait view, a panorama) is drawn slightly enlarged instead of held at several times
///   the memory the view shows: a 4032x3024 photo filling a 1179x2556 screen decodes at
///   2455x1841 (18 MB), not 3408x2556 (35 MB, more than a 256 MB memory cache keeps in one
///   entry).
///
/// ```swift
/// let target = DecodingTarget(size: PixelSize(width: 192, height: 192), contentMode: .aspectFill)
/// target.decodedSize(of: PixelSize(width: 4000, height: 3000)) // 256x192
/// ```
package struct DecodingTarget: Sendable, Hashable, CustomStringConvertible {
    /// The size the image is shown at, in pixels; `nil`: unknown (only ``maximumSize`` applies).
    package var size: PixelSize?
    /// How the image covers ``size``.
    package var contentMode: ImageContentMode
    /// The most the result may be, as an aspect fit; `nil`: no cap.
    package var maximumSize: PixelSize?
    /// Whether an HDR image is decoded to its high dynamic range where the system can
    /// (``ImageRequest/Options/decodeToHDR``; `DecodingTarget+DynamicRange`).
    package var decodesToHDR = false

    /// A target of `size` filled as `contentMode` (`nil`: the image's own size), never larger
    /// than `maximumSize`.
    package init(size: PixelSize?, contentMode: ImageContentMode = .aspectFill, maximumSize: PixelSize? = nil) {
        self.size = size
        self.contentMode = contentMode
        self.maximumSize = maximumSize
    }

    /// Whether this target can change an image's size at all.
    package var isUnbounded: Bool { size == nil && maximumSize == nil }

    /// The size a decode of an image of `source` pixels (as displayed, orientation applied)
    /// produces, never larger than `source`: for `.aspectFill`, at least ``size`` in both
    /// dimensions (each side of ``size`` taken up to ``maximumSize``'s); for `.aspectFit`, inside
    /// ``size``, then inside ``maximumSize``; with no size, inside ``maximumSize``.
    package func decodedSize(of source: PixelSize) -> PixelSize {
        guard source.width > 0, source.height > 0 else { return source }
        if let fill = fillSize {
            // A view's own size: covered, the overflow bounded.
            return source.filling(fill).boundingOverflow(of: fill, cap: maximumSize)
        }
        var result = source
        if let size, size.width > 0, size.height > 0 {
            result = source.fitted(into: size)
        }
        if let maximumSize {
            result = result.fitted(into: maximumSize)
        }
        return result
    }

    /// The most pixels a fill decode holds, as a multiple of its target's (1.5), and the most a
    /// bounded fill is enlarged when drawn: the overflow beyond the view is clipped, so more
    /// would be memory nobody sees.
    package static let fillOverflowLimit = 1.5

    /// The size an `.aspectFill` decode covers: ``size``, each side at most ``maximumSize``'s
    /// (no screen shows more); `nil` for fit targets and unknown sizes.
    private var fillSize: PixelSize? {
        guard contentMode == .aspectFill, let size, size.width > 0, size.height > 0 else { return nil }
        guard let maximumSize, maximumSize.width > 0, maximumSize.height > 0 else { return size }
        return PixelSize(width: min(size.width, maximumSize.width), height: min(size.height, maximumSize.height))
    }

    /// The bounds whose aspect fit gives ``decodedSize(of:)`` for an image of `source` pixels:
    /// how a target reaches a decoder that only fits (``ImageDecoding/decode(_:info:targetPixelSize:)``).
    /// For `.aspectFit` (or an unknown size) that is the target size within the cap; `nil` when
    /// nothing bounds the decode.
    package func fittingBounds(for source: PixelSize?) -> PixelSize? {
        if contentMode == .aspectFit || source == nil || size == nil {
            // Fit (or a size unknown: fit is what memory allows): the target within the cap.
            guard let size else { return maximumSize }
            return maximumSize.map { PixelSize(width: min(size.width, $0.width), height: min(size.height, $0.height)) } ?? size
        }
        return source.map { decodedSize(of: $0) }
    }

    /// The longest side of the decode of an image of `source` pixels (``decodedSize(of:)``), as
    /// ImageIO's thumbnail API takes it; `nil` when the image keeps its size (never upscaled) or
    /// nothing bounds the decode. The first frame and an animation's frames share it.
    package func longestSide(forSource source: PixelSize?) -> Int? {
        guard !isUnbounded else { return nil }
        guard let source else {
            return fittingBounds(for: nil).map { max($0.width, $0.height) }
        }
        let decoded = decodedSize(of: source)
        guard decoded != source else { return nil }
        return max(decoded.width, decoded.height)
    }

    package var description: String {
        let base = (size.map { "\($0),\(contentMode.rawValue)" } ?? "full") + (decodesToHDR ? ",hdr" : "")
        return maximumSize.map { base + ",max \($0)" } ?? base
    }
}

extension PixelSize {
    /// The smallest size with this aspect ratio that covers `bounds` in both dimensions; never
    /// larger than self.
    package func filling(_ bounds: PixelSize) -> PixelSize {
        guard width > 0, height > 0, bounds.width > 0, bounds.height > 0 else { return self }
        let scale = max(Double(bounds.width) / Double(width), Double(bounds.height) / Double(height))
        guard scale < 1 else { return self }
        return PixelSize(
            width: min(width, max(bounds.width, Int((Double(width) * scale).rounded()))),
            height: min(height, max(bounds.height, Int((Double(height) * scale).rounded())))
        )
    }

    /// This size (a fill of `target`) scaled down, aspect kept, to hold at most
    /// `DecodingTarget.fillOverflowLimit` times `target`'s pixels, but never drawn more than
    /// that many times enlarged (a view far wider than its image: a strip); and no more than
    /// `cap`'s pixels whatever the shape (a panorama).
    func boundingOverflow(of target: PixelSize, cap: PixelSize?) -> PixelSize {
        let overflowLimit = DecodingTarget.fillOverflowLimit
        let area = Double(width) * Double(height)
        var limit = Swift.max(overflowLimit * Double(target.width) * Double(target.height), area / (overflowLimit * overflowLimit))
        if let cap, cap.width > 0, cap.height > 0 {
            limit = Swift.min(limit, Double(cap.width) * Double(cap.height))
        }
        guard area > limit, area > 0 else { return self }
        let scale = (limit / area).squareRoot()
        return PixelSize(
            width: Swift.max(1, Int((Double(width) * scale).rounded(.down))),
            height: Swift.max(1, Int((Double(height) * scale).rounded(.down)))
        )
    }

    /// A square of this size's longer side: a cap that holds a screen in either orientation.
    var squareOfLongerSide: PixelSize {
        let side = Swift.max(width, height)
        return PixelSize(width: side, height: side)
    }
}

extension ImageContentMode {
    /// The content mode to decode for an image view showing its image with the UIKit content
    /// mode whose `rawValue` is `rawValue` (`UIView.ContentMode`): `.scaleAspectFit` (1) fits;
    /// `.scaleToFill` (0), `.scaleAspectFill` (2) and `.redraw` (3) fill (the image covers the
    /// view, so it needs the view's pixels in both dimensions). The positioning modes
    /// (`.center`, `.top`, ... 4-12) draw the image unscaled: `nil`, decode without the view's
    /// size (the pipeline's cap still applies).
    ///
    /// ```swift
    /// request.contentMode = ImageContentMode(viewContentMode: imageView.contentMode.rawValue) ?? .aspectFill
    /// ```
    public init?(viewContentMode rawValue: Int) {
        switch rawValue {
        case 1: self = .aspectFit
        case 0, 2, 3: self = .aspectFill
        default: return nil
        }
    }

    /// The content mode to decode for an `NSImageView` whose `imageScaling` has `rawValue`
    /// (`NSImageScaling`): the proportional scalings (`.scaleProportionallyDown` 0,
    /// `.scaleProportionallyUpOrDown` 3) fit; `.scaleAxesIndependently` (1) stretches the image
    /// over the view, which needs the view's pixels in both dimensions: fill; `.scaleNone` (2)
    /// draws it unscaled: `nil` (decode without the view's size; the pipeline's cap applies).
    package init?(imageScaling rawValue: Int) {
        switch rawValue {
        case 0, 3: self = .aspectFit
        case 1: self = .aspectFill
        default: return nil
        }
    }
}
