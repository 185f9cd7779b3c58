import Foundation

/// The size to decode an image at from the size SwiftUI lays its view out at: the rule behind
/// `CachedAsyncImage`'s automatic sizing, here so it is tested on every platform.
///
/// When a request asks for no `targetSize`, the view records the proposal its parent makes
/// (the size the image will be drawn at when the content resizes it) and decodes at that size
/// times the display's scale, in the request's content mode:
///
/// - A proposal with one known dimension (a feed row in a `LazyVStack` or `List`: a width, no
///   height) fits by it, as ``LayoutTarget`` does for UIKit: the image is as wide as the row
///   (or as tall), the other side bounded by the pipeline's cap only. A proposal unspecified or
///   infinite in both (an ideal-size pass) keeps the pipeline's cap
///   (``ImagePipeline/Configuration/maximumDecodedPixelSize``).
/// - The laid-out size decides, subtree defaults cap it (``request(for:defaults:)``): a default
///   `maximumDecodedPixelSize` never replaces the size a view is drawn at.
/// - Hysteresis: once a target is set, a larger proposal re-decodes only when it grows by more
///   than ``relativeTolerance`` or ``pointTolerance`` points, so a 1-point change does not.
/// - Never for a smaller size: a smaller proposal keeps the target; and an image on screen that
///   already covers a new target (in the content mode), or is already at its source's full size,
///   is kept.
///
/// ```swift
/// var sizing = LayoutDecodeSize()
/// sizing.record(proposedWidth: 110, proposedHeight: 110, displayScale: 3, contentMode: .aspectFill, shown: nil)
/// sizing.target // 330x330: a 4000x3000 photo decodes to 440x330
/// ```
package struct LayoutDecodeSize: Sendable, Hashable {
    /// Growth ignored, as a share of the current target (10%).
    package static let relativeTolerance = 0.1
    /// Growth ignored, in points (2).
    package static let pointTolerance = 2.0

    /// The target decodes use, with its content mode when one dimension decides (fit by it);
    /// `nil`: none recorded yet, or the proposal was unspecified (the pipeline's cap applies).
    private(set) var layout: LayoutTarget?

    /// The target decodes use, in pixels; `nil`: none recorded yet, or the proposal was
    /// unspecified (the pipeline's cap applies). A side no proposal bounds is
    /// ``LayoutTarget/unbounded``.
    package var target: PixelSize? { layout?.size }

    package init() {}

    /// The pixel target for a proposal of `width` x `height` points on a display of
    /// `displayScale` pixels per point; `nil` when either dimension is unspecified, infinite or
    /// not positive (the cap applies). `content` is the size the view's content takes for that
    /// proposal: where it is larger in both dimensions (an image shown at its natural size, not
    /// resized to the proposal), the image is drawn that large, and that counts. Content that
    /// matches the proposal in one dimension and overflows it in the other is a fill of the
    /// proposal (`scaledToFill()`): the target is the proposal, whose fill decode bounds the
    /// overflow nobody sees (`DecodingTarget.fillOverflowLimit`).
    package static func pixelTarget(
        proposedWidth width: Double?,
        proposedHeight height: Double?,
        content: (width: Double, height: Double)? = nil,
        displayScale: Double
    ) -> PixelSize? {
        guard var width, var height, width.isFinite, height.isFinite, width > 0, height > 0 else { return nil }
        if let content {
            guard content.width.isFinite, content.height.isFinite else { return nil }
            if !isFill(content, of: (width, height)) {
                width = max(width, content.width)
                height = max(height, content.height)
            }
        }
        return PixelSize(points: CGSize(width: width, height: height), scale: displayScale)
    }

    /// Whether `content` is a fill of `proposal`: the same in one dimension (within half a
    /// point), larger in the other.
    private static func isFill(_ content: (width: Double, height: Double), of proposal: (width: Double, height: Double)) -> Bool {
        let sameWidth = abs(content.width - proposal.width) <= 0.5, sameHeight = abs(content.height - proposal.height) <= 0.5
        return (sameWidth && content.height > proposal.height) || (sameHeight && content.width > proposal.width)
    }

    /// The target for a proposal (see ``pixelTarget(proposedWidth:proposedHeight:content:displayScale:)``),
    /// or, when only one dimension is known (finite and positive), a fit by it: that side, the
    /// other unbounded. `nil` when neither is known.
    static func layoutTarget(
        proposedWidth width: Double?,
        proposedHeight height: Double?,
        content: (width: Double, height: Double)? = nil,
        displayScale: Double,
        cap: PixelSize? = nil
    ) -> LayoutTarget? {
        if let size = pixelTarget(proposedWidth: width, proposedHeight: height, content: content, displayScale: displayScale) {
            return LayoutTarget(size: size, contentMode: nil)
        }
        func known(_ proposed: Double?, _ drawn: Double?) -> Double {
            guard let proposed, proposed.isFinite, proposed > 0 else { return 0 }
            guard let drawn, drawn.isFinite else { return proposed }
            return max(proposed, drawn)
        }
        // The other side is the cap's longer one, as UIKit's (same key, same decode).
        return LayoutTarget(
            width: known(width, content?.width), height: known(height, content?.height),
            scale: displayScale, unknownSide: cap.map { max($0.width, $0.height) } ?? LayoutTarget.unbounded
        )
    }

    /// The proposal a view whose whole drawing is measured (`.loadImage(_:into:)`, applied
    /// after the view's `.frame`) is drawn at, one dimension at a time: where the view is rigid
    /// (the same size for the smallest and the largest proposal, a frame), that size, whatever
    /// its parent proposes; where it is flexible, the proposal.
    ///
    /// ```swift
    /// // A 64x64 frame in a 393-point-wide stack: drawn at 64x64, not 393 wide.
    /// LayoutDecodeSize.drawnProposal(proposed: (393, nil), smallest: (64, 64), largest: (64, 64)) // (64, 64)
    /// ```
    package static func drawnProposal(
        proposed: (width: Double?, height: Double?),
        smallest: (width: Double, height: Double),
        largest: (width: Double, height: Double)
    ) -> (width: Double?, height: Double?) {
        func side(_ proposed: Double?, _ smallest: Double, _ largest: Double) -> Double? {
            guard smallest.isFinite, smallest > 0, abs(largest - smallest) <= 0.5 else { return proposed }
            return smallest
        }
        return (side(proposed.width, smallest.width, largest.width), side(proposed.height, smallest.height, largest.height))
    }

    /// The request a view loads: `own` (the view's request, its point sizes resolved) with the
    /// laid-out target when it asks for none, then `defaults` (a subtree's
    /// ``ImageRequestDefaults``) where it left things unset. The layout decides: a default
    /// `targetSize` applies only while no layout gave one, and a default `maximumDecodedPixelSize`
    /// caps a fit target and never replaces a fill target (the size the view is drawn at).
    package func request(for own: ImageRequest, defaults: ImageRequestDefaults) -> ImageRequest {
        var own = own
        // A subtree that asks for the full resolution is not sized by its views' layout either.
        own.options.formUnion(defaults.options.intersection(.decodeFullResolution))
        return defaults.applied(to: applied(to: own))
    }

    /// Records the proposal the view was placed with (and the size its content took for it,
    /// see ``pixelTarget(proposedWidth:proposedHeight:content:displayScale:)``). `shown` is the
    /// image on screen, if any (its decoded size and its source's). Returns `true` when
    /// ``target`` changed: the view should load at the new target (the download is the same;
    /// the decode is new).
    @discardableResult
    package mutating func record(
        proposedWidth: Double?,
        proposedHeight: Double?,
        content: (width: Double, height: Double)? = nil,
        displayScale: Double,
        contentMode: ImageContentMode,
        shown: (decoded: PixelSize, source: PixelSize?)?,
        cap: PixelSize? = nil
    ) -> Bool {
        let new = Self.layoutTarget(
            proposedWidth: proposedWidth, proposedHeight: proposedHeight, content: content, displayScale: displayScale, cap: cap
        )
        guard new != layout else { return false }
        // What the image on screen is enough for: the new target as the decode would see it
        // (within the cap), with the growth tolerance (a rounding, a point).
        func isCovered(_ target: LayoutTarget) -> Bool {
            guard let shown else { return false }
            return Self.covers(shown, target.size, target.contentMode ?? contentMode, cap: cap, tolerance: Self.relativeTolerance)
        }
        guard let current = layout else {
            // First target (nothing decoded for one yet): take it, unless the image on screen,
            // decoded without one, covers it already.
            guard let new, !isCovered(new) else { return false }
            layout = new
            return true
        }
        guard let new else {
            // Unspecified now: the cap, unless what is on screen is already the whole image.
            if let shown, let source = shown.source, shown.decoded == source { return false }
            layout = nil
            return true
        }
        let scale = displayScale.isFinite && displayScale > 0 ? displayScale : 1
        func grows(_ new: Int, _ old: Int) -> Bool {
            let growth = Double(new) - Double(old)
            return growth > Double(old) * Self.relativeTolerance && growth > Self.pointTolerance * scale
        }
        // Only a side the proposal knows counts: a side it leaves open (one-sided targets fit by
        // the other) never grows, and becoming known is new information.
        let newKnows = Self.knownSides(new), currentKnows = Self.knownSides(current)
        let widthGrows = newKnows.width && (!currentKnows.width || grows(new.size.width, current.size.width))
        let heightGrows = newKnows.height && (!currentKnows.height || grows(new.size.height, current.size.height))
        guard widthGrows || heightGrows, !isCovered(new) else { return false }
        layout = new
        return true
    }

    /// Which sides of `target` a proposal gave: both for a two-sided target; for one fitted by
    /// one side, the side that is not the open one (the longer).
    private static func knownSides(_ target: LayoutTarget) -> (width: Bool, height: Bool) {
        guard target.contentMode == .aspectFit else { return (true, true) }
        return target.size.width <= target.size.height ? (true, false) : (false, true)
    }

    /// `request` with ``target`` as its target size, when it asks for none (and does not
    /// start with a resize processor, whose size is the decode's target then).
    package func applied(to request: ImageRequest) -> ImageRequest {
        guard request.isSizedByLayout, let layout else { return request }
        return layout.applied(to: request)
    }

    /// Whether the image on screen for `current` stays while `next` loads: `next` is the same
    /// image at another size (same URL, another target), as after the laid-out size grew, so
    /// the placeholder does not flash in between.
    package static func keepsImage(whileLoading next: ImageRequest, after current: ImageRequest?) -> Bool {
        guard let current, let url = next.url else { return false }
        return current.url == url && current.targetPixelSize != next.targetPixelSize
    }

    /// Whether an image decoded at `shown.decoded` is enough for `target`: it covers it in the
    /// content mode (fill: both dimensions; fit: the limiting one), or it is its source's full size.
    /// With `cap`, a decode the cap limits is enough once the image on screen is what the cap
    /// allows; `tolerance`: a share of the target the image may fall short of.
    static func covers(
        _ shown: (decoded: PixelSize, source: PixelSize?),
        _ target: PixelSize,
        _ mode: ImageContentMode,
        cap: PixelSize? = nil,
        tolerance: Double = 0
    ) -> Bool {
        let decoded = shown.decoded
        if let source = shown.source, decoded.width >= source.width, decoded.height >= source.height { return true }
        guard decoded.width > 0, decoded.height > 0 else { return false }
        if let source = shown.source {
            // What the decode would produce for this target, the cap applied.
            var request = ImageRequest(url: nil)
            request.targetPixelSize = target
            request.contentMode = mode
            let wanted = request.decodingTarget(maximumSize: cap).decodedSize(of: source)
            let slack = 1 + max(0, tolerance)
            return Double(decoded.width) * slack >= Double(wanted.width) && Double(decoded.height) * slack >= Double(wanted.height)
        }
        let widthScale = Double(target.width) / Double(decoded.width)
        let heightScale = Double(target.height) / Double(decoded.height)
        let needed = mode == .aspectFit ? min(widthScale, heightScale) : max(widthScale, heightScale)
        return needed <= 1 + max(0, tolerance)
    }
}
