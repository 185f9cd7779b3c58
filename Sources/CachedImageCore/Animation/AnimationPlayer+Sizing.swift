import Foundation

/// A view's own request and layout (``AnimationSizing``): what `CachedAnimatedImage` and
/// `CachedAnimatedImageView` load, so frames decode at the size they are drawn.
extension AnimationPlayer {
    /// Shows the view's own request `own` (point sizes resolved) at its laid-out size, with
    /// `defaults` capping it (see ``AnimationSizing``). `waitsForLayout`: the view may not have
    /// been laid out yet (UIKit), so an unsized request waits for ``layoutDidChange(width:height:displayScale:)``;
    /// until then nothing of a previous picture is drawn. `followsLayout: false` loads `own` as
    /// is (a view drawing its image unscaled). The same request again is a no-op.
    package func show(
        _ own: ImageRequest?,
        defaults: ImageRequestDefaults = ImageRequestDefaults(),
        waitsForLayout: Bool = false,
        followsLayout: Bool = true,
        pipeline: ImagePipeline
    ) {
        sizing.setRequest(own, defaults: defaults, waitsForLayout: waitsForLayout, followsLayout: followsLayout)
        load(sizing.request, pipeline: pipeline)
    }

    /// Records a layout (see ``AnimationSizing/record(width:height:content:displayScale:shown:cap:)``)
    /// without loading; returns `true` when the request to load changed: call ``applyLayout()``
    /// (SwiftUI: after the layout pass).
    @discardableResult
    package func recordLayout(
        width: Double?,
        height: Double?,
        content: (width: Double, height: Double)? = nil,
        displayScale: Double
    ) -> Bool {
        let shown: (decoded: PixelSize, source: PixelSize?)? = if case .firstFrame(let first) = phase {
            (first.pixelSize, first.sourcePixelSize)
        } else {
            nil
        }
        return sizing.record(
            width: width, height: height, content: content, displayScale: displayScale,
            shown: shown, cap: pipeline?.configuration.maximumDecodedPixelSize
        )
    }

    /// Loads the request the recorded layout gives, if it changed: the first frame on screen
    /// stays until the new size's arrives; a download in flight is joined, never restarted.
    package func applyLayout() {
        guard let pipeline, let request = sizing.request, request != self.request else { return }
        load(request, pipeline: pipeline)
    }

    /// The view was laid out at `width` x `height` points (zero: unknown) at `displayScale`:
    /// ``recordLayout(width:height:content:displayScale:)`` then ``applyLayout()``.
    package func layoutDidChange(width: Double, height: Double, displayScale: Double) {
        if recordLayout(width: width, height: height, displayScale: displayScale) {
            applyLayout()
        }
    }

    /// Whether a view about to show `own` may draw this player's frame: only when the player
    /// shows that same request. A view rendered with a new request before the player has it
    /// (SwiftUI runs `body` before `onChange`) draws the new request's first frame from memory
    /// (``sizedRequest(for:defaults:)``) or its placeholder, never the previous picture.
    package func drawsFrame(for own: ImageRequest?) -> Bool {
        own != nil && sizing.own == own
    }

    /// The request the player would load for `own` with `defaults` at the current layout (for a
    /// synchronous memory lookup before it loads it).
    package func sizedRequest(for own: ImageRequest, defaults: ImageRequestDefaults) -> ImageRequest? {
        var sizing = self.sizing
        sizing.setRequest(own, defaults: defaults)
        return sizing.request
    }
}
