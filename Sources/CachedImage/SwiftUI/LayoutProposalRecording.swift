#if canImport(SwiftUI)
import CoreGraphics

/// What ``ProposalRecordingLayout`` tells of each placement: `CachedAsyncImage`'s
/// `LayoutSizingRecorder` and `CachedAnimatedImage`'s `AnimationLayoutRecorder`. Called on the
/// main thread, during the layout pass: record, and change views only after it.
protocol LayoutProposalRecording: AnyObject, Sendable {
    /// A placement: the proposal (`nil`: unspecified), and the size the content took for it.
    func record(proposedWidth: Double?, proposedHeight: Double?, content: CGSize)
}

extension LayoutSizingRecorder: LayoutProposalRecording {}
#endif
