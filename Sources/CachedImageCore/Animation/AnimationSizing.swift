import Foundation

/// The request an animated image view loads: its own request sized by its layout, by the
/// still images' rule (``LayoutDecodeSize``), so frames decode at the size they are drawn.
///
/// A 120 pt sticker of a 1920x1080 animation on a 3x screen decodes frames of at most 640x360
/// (0.9 MB), not 1920x1080 ones (8.3 MB): a 16 MB frame buffer then holds a whole loop of up to
/// 18 frames instead of two, and a loop that fits is never decoded again.
///
/// - The laid-out size decides (SwiftUI's proposal, UIKit's bounds, times the display's
///   scale); subtree defaults cap it, never replace it (``LayoutDecodeSize/request(for:defaults:)``).
/// - The request's own `targetSize` (or a leading resize processor) wins: the layout is not used.
/// - Growth re-decodes only beyond ``LayoutDecodeSize``'s tolerance and when the first frame
///   on screen does not already cover it; a smaller size or a lower scale (a view that left
///   its window) never does. A view laid out outside a window at 1x that joins a 3x window
///   grows.
/// - A view that may not have been laid out yet (UIKit: a cell configured before its first
///   layout) waits for a layout before an unsized request loads; a layout that gives no size
///   (an image view sized by its image is 0x0 until it has one) loads at the pipeline's cap.
package struct AnimationSizing: Sendable, Equatable {
    /// The view's own request (point sizes resolved), before its layout and the defaults.
    package private(set) var own: ImageRequest?
    /// The subtree's (or the view's) defaults, applied after the layout.
    package private(set) var defaults = ImageRequestDefaults()
    private var layout = LayoutDecodeSize()
    /// The view is sized by its layout (UIKit: `false` for a view drawing its image unscaled).
    private var followsLayout = true
    /// An unsized request waits for the view's first layout.
    private var waitsForLayout = false
    /// A layout was recorded (even one giving no size).
    private var hasLayout = false

    package init() {}

    /// The request to load now: ``own`` at the laid-out size, then the defaults; `nil` when
    /// there is none, or while it waits for the view's first layout (``isWaitingForLayout``).
    package var request: ImageRequest? {
        guard let own, !isWaitingForLayout else { return nil }
        guard followsLayout else { return defaults.applied(to: own) }
        return layout.request(for: own, defaults: defaults)
    }

    /// Whether ``own`` waits for the view's first layout before it loads.
    package var isWaitingForLayout: Bool {
        guard let own, followsLayout, waitsForLayout, !hasLayout else { return false }
        return own.isSizedByLayout
    }

    /// The view shows `own` now. The layout recorded so far stays (a reused cell keeps its
    /// size); `waitsForLayout`: the view may not have been laid out yet (UIKit), so an unsized
    /// request loads only after ``record(width:height:content:displayScale:shown:cap:)``;
    /// `followsLayout: false` loads `own` as is (with the defaults), whatever the layout.
    package mutating func setRequest(
        _ own: ImageRequest?,
        defaults: ImageRequestDefaults = ImageRequestDefaults(),
        waitsForLayout: Bool = false,
        followsLayout: Bool = true
    ) {
        self.own = own
        self.defaults = defaults
        self.waitsForLayout = waitsForLayout
        self.followsLayout = followsLayout
    }

    /// A layout: the view laid out at `width` x `height` points (`nil`, zero or not finite:
    /// unknown) on a display of `displayScale` pixels per point; `content`, SwiftUI's size of
    /// the content for that proposal. `shown` is the first frame on screen (its decoded size and
    /// its source's), `cap` the pipeline's ``ImagePipeline/Configuration/maximumDecodedPixelSize``.
    /// Returns `true` when ``request`` changed: the view should load it (the download is the
    /// same; the decode is new).
    @discardableResult
    package mutating func record(
        width: Double?,
        height: Double?,
        content: (width: Double, height: Double)? = nil,
        displayScale: Double,
        shown: (decoded: PixelSize, source: PixelSize?)?,
        cap: PixelSize?
    ) -> Bool {
        let before = request
        hasLayout = true
        layout.record(
            proposedWidth: width, proposedHeight: height, content: content, displayScale: displayScale,
            contentMode: own?.contentMode ?? .aspectFill, shown: shown, cap: cap
        )
        return request != before
    }

    /// Whether the view may go on drawing what it shows for `current` (the request loaded
    /// before) while `next` loads: the same picture at another size (the layout grew). A new
    /// picture (another URL, a new row) never shows the previous one's frames.
    package static func keepsFrame(whileLoading next: ImageRequest, after current: ImageRequest?) -> Bool {
        LayoutDecodeSize.keepsImage(whileLoading: next, after: current)
    }
}
