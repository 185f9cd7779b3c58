import Foundation

/// The size to decode an image at from the size SwiftUI lays its view out at: the rule behind
/// `CachedAsyncImage`'s automatic sizing, here so it is tested on every platform.
///
/// When a request asks for no `targetSize`, the view records the proposal its parent makes
/// (the size the image will be drawn at when the content resizes it) and decodes at that size
/// times the display's scale, in the request's content mode:
///
/// - A proposal unspecified or infinite in either dimension (a scroll axis, an ideal-size pass)
///   keeps today's decode: the pipeline's cap (``ImagePipeline/Configuration/maximumDecodedPixelSize``).
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
public struct LayoutDecodeSize: Sendable, Hashable {
    /// Growth ignored, as a share of the current target (10%).
    public static let relativeTolerance = 0.1
    /// Growth ignored, in points (2).
    public static let pointTolerance = 2.0

    /// The target decodes use, in pixels; `nil`: none recorded yet, or the proposal was
    /// unspecified (the pipeline's cap applies).
    public private(set) var target: PixelSize?

    public init() {}

    /// The pixel target for a proposal of `width` x `height` points on a display of
    /// `displayScale` pixels per point; `nil` when either dimension is unspecified, infinite or
    /// not positive (the cap applies). `content` is the size the view's content takes for that
    /// proposal: where it is larger (an image shown at its natural size, not resized to the
    /// proposal; a fill that overflows), the image is drawn that large, and that counts.
    public static func pixelTarget(
        proposedWidth width: Double?,
        proposedHeight height: Double?,
        content: (width: Double, height: Double)? = nil,
        displayScale: Double
    ) -> PixelSize? {
        guard var width, var height, width.isFinite, height.isFinite, width > 0, height > 0 else { return nil }
        if let content {
            guard content.width.isFinite, content.height.isFinite else { return nil }
            width = max(width, content.width)
            height = max(height, content.height)
        }
        return PixelSize(points: CGSize(width: width, height: height), scale: displayScale)
    }

    /// Records the proposal the view was placed with (and the size its content took for it,
    /// see ``pixelTarget(proposedWidth:proposedHeight:content:displayScale:)``). `shown` is the
    /// image on screen, if any (its decoded size and its source's). Returns `true` when
    /// ``target`` changed: the view should load at the new target (the download is the same;
    /// the decode is new).
    @discardableResult
    public mutating func record(
        proposedWidth: Double?,
        proposedHeight: Double?,
        content: (width: Double, height: Double)? = nil,
        displayScale: Double,
        contentMode: ImageContentMode,
        shown: (decoded: PixelSize, source: PixelSize?)?
    ) -> Bool {
        let new = Self.pixelTarget(
            proposedWidth: proposedWidth, proposedHeight: proposedHeight, content: content, displayScale: displayScale
        )
        guard new != target else { return false }
        guard let current = target else {
            // First target (nothing decoded for one yet): take it, unless the image on screen,
            // decoded without one, covers it already.
            guard let new else { return false }
            if let shown, Self.covers(shown, new, contentMode) { return false }
            target = new
            return true
        }
        guard let new else {
            // Unspecified now: the cap, unless what is on screen is already the whole image.
            if let shown, let source = shown.source, shown.decoded == source { return false }
            target = nil
            return true
        }
        let scale = displayScale.isFinite && displayScale > 0 ? displayScale : 1
        func grows(_ new: Int, _ old: Int) -> Bool {
            let growth = Double(new - old)
            return growth > Double(old) * Self.relativeTolerance && growth > Self.pointTolerance * scale
        }
        guard grows(new.width, current.width) || grows(new.height, current.height) else { return false }
        if let shown, Self.covers(shown, new, contentMode) { return false }
        target = new
        return true
    }

    /// `request` with ``target`` as its target size, when it asks for none (and does not
    /// start with a resize processor, whose size is the decode's target then).
    public func applied(to request: ImageRequest) -> ImageRequest {
        guard request.targetSize == nil, let target, !(request.processors.first is ImageResizing) else { return request }
        var sized = request
        sized.targetSize = target
        return sized
    }

    /// Whether the image on screen for `current` stays while `next` loads: `next` is the same
    /// image at another size (same URL, another target), as after the laid-out size grew, so
    /// the placeholder does not flash in between.
    public static func keepsImage(whileLoading next: ImageRequest, after current: ImageRequest?) -> Bool {
        guard let current, let url = next.url else { return false }
        return current.url == url && current.targetSize != next.targetSize
    }

    /// Whether an image decoded at `shown.decoded` is enough for `target`: it covers it in the
    /// content mode (fill: both dimensions; fit: the limiting one), or it is its source's full size.
    static func covers(_ shown: (decoded: PixelSize, source: PixelSize?), _ target: PixelSize, _ mode: ImageContentMode) -> Bool {
        let decoded = shown.decoded
        if let source = shown.source, decoded.width >= source.width, decoded.height >= source.height { return true }
        guard decoded.width > 0, decoded.height > 0 else { return false }
        let widthScale = Double(target.width) / Double(decoded.width)
        let heightScale = Double(target.height) / Double(decoded.height)
        let needed = mode == .aspectFit ? min(widthScale, heightScale) : max(widthScale, heightScale)
        return needed <= 1
    }
}
