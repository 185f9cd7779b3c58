/// The display scale an image view's decode is sized at, as ``ImageViewLoadingController``
/// follows it through a view's life in UIKit and AppKit.
///
/// A view does not know its final scale before it joins a window: UIKit lays out a cell built
/// outside one at 1x, and the 3x window it joins changes no size. So a scale is only ever a
/// reason to decode sharper: a higher scale retargets the request like a larger size (joining
/// the download in flight), a lower one (the view left its window, its traits fell back to 1x,
/// it moved to a 1x external display) keeps the sharper target, which covers it. A new
/// request starts from what the view reports.
enum ViewScaleRule {
    /// The scale to size at when the view reports `reported` pixels per point and the request
    /// is sized at `current` (`nil`: a new request). A scale that is not positive or not finite
    /// is unknown: 1 for a new request, else `current`.
    static func scale(reported: Double, current: Double?) -> Double {
        let reported = reported > 0 && reported.isFinite ? reported : nil
        guard let current else { return reported ?? 1 }
        return max(current, reported ?? current)
    }
}
