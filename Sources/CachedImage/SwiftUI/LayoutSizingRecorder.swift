#if canImport(SwiftUI)
import CachedImageCore
import Foundation
import SwiftUI

/// What `CachedAsyncImage` (and a view with `.loadImage(_:into:)`) learns from its layout: the
/// proposal it was placed with, turned into a decode target by `LayoutDecodeSize` (the rule, in
/// core). One per view, held as a `@StateObject` (made once per view, not on every render of
/// its parent; it never publishes), used on the main thread only (SwiftUI lays out and renders
/// there).
///
/// The view applies ``applied(to:)`` to its request when it asks for no `targetSize`; the
/// ``ProposalRecordingLayout`` records each placement; when the target changes, `onChange`
/// asks for a render (after the layout pass), whose request then carries the new target.
final class LayoutSizingRecorder: ObservableObject, @unchecked Sendable {
    private var sizing = LayoutDecodeSize()
    private var displayScale: Double = 1
    private var contentMode: ImageContentMode = .aspectFill
    private var cap: PixelSize?
    private var shown: () -> DecodedImage? = { nil }
    private var onChange: () -> Void = {}
    private var isChangePending = false

    /// Called from `body` with what the next placements need: the display's scale, the
    /// request's content mode, the pipeline's decode cap, the image `model` shows, and `model`
    /// to render again.
    @MainActor
    func configure(for model: CachedImageModel, request: ImageRequest, displayScale: Double, cap: PixelSize?) {
        self.displayScale = displayScale
        self.contentMode = request.contentMode
        self.cap = cap
        self.shown = { [weak model] in model?.loader.phase.response?.image }
        self.onChange = { [weak model] in model?.objectWillChange.send() }
    }

    /// `own` with the laid-out target when it asks for none, then `defaults` (which cap it).
    func request(for own: ImageRequest, defaults: ImageRequestDefaults) -> ImageRequest {
        sizing.request(for: own, defaults: defaults)
    }

    /// A placement: the proposal (`nil`: unspecified), and the size the content took for it.
    func record(proposedWidth: Double?, proposedHeight: Double?, content: CGSize) {
        let image = shown()
        let changed = sizing.record(
            proposedWidth: proposedWidth,
            proposedHeight: proposedHeight,
            content: (Double(content.width), Double(content.height)),
            displayScale: displayScale,
            contentMode: contentMode,
            shown: image.map { ($0.pixelSize, $0.sourcePixelSize) },
            cap: cap
        )
        guard changed, !isChangePending else { return }
        // Not during the layout pass: SwiftUI renders again afterwards.
        isChangePending = true
        DispatchQueue.main.async { [self] in
            isChangePending = false
            onChange()
        }
    }
}

/// A one-child layout that records the proposal its child is placed with and otherwise lays it
/// out exactly as its parent would without it: the child's own size for the same proposal, its
/// spacing, its explicit alignment guides, placed at the centre of the bounds (which are the
/// child's size). So `CachedAsyncImage` lays out as `AsyncImage` does.
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
struct ProposalRecordingLayout: Layout {
    let recorder: any LayoutProposalRecording
    /// Whether the child is the whole drawing (`.loadImage(_:into:)`): where it is rigid (a
    /// frame), its own size is what is drawn, whatever the proposal.
    var measuresWholeView = false

    func sizeThatFits(proposal: ProposedViewSize, subviews: Subviews, cache: inout ()) -> CGSize {
        subviews.first?.sizeThatFits(proposal) ?? .zero
    }

    func placeSubviews(in bounds: CGRect, proposal: ProposedViewSize, subviews: Subviews, cache: inout ()) {
        guard let child = subviews.first else { return }
        child.place(at: CGPoint(x: bounds.midX, y: bounds.midY), anchor: .center, proposal: proposal)
        var proposed: (width: Double?, height: Double?) = (proposal.width.map(Double.init), proposal.height.map(Double.init))
        if measuresWholeView {
            let smallest = child.sizeThatFits(.zero), largest = child.sizeThatFits(.infinity)
            proposed = LayoutDecodeSize.drawnProposal(
                proposed: proposed,
                smallest: (Double(smallest.width), Double(smallest.height)),
                largest: (Double(largest.width), Double(largest.height))
            )
        }
        recorder.record(proposedWidth: proposed.width, proposedHeight: proposed.height, content: child.sizeThatFits(proposal))
    }

    func spacing(subviews: Subviews, cache: inout ()) -> ViewSpacing {
        subviews.first?.spacing ?? ViewSpacing()
    }

    func explicitAlignment(of guide: HorizontalAlignment, in bounds: CGRect, proposal: ProposedViewSize, subviews: Subviews, cache: inout ()) -> CGFloat? {
        guard let child = subviews.first else { return nil }
        let dimensions = child.dimensions(in: proposal)
        return dimensions[explicit: guide].map { bounds.midX - dimensions.width / 2 + $0 }
    }

    func explicitAlignment(of guide: VerticalAlignment, in bounds: CGRect, proposal: ProposedViewSize, subviews: Subviews, cache: inout ()) -> CGFloat? {
        guard let child = subviews.first else { return nil }
        let dimensions = child.dimensions(in: proposal)
        return dimensions[explicit: guide].map { bounds.midY - dimensions.height / 2 + $0 }
    }
}

extension View {
    /// This view inside a ``ProposalRecordingLayout`` where the OS has `Layout` (iOS 16,
    /// macOS 13, tvOS 16, watchOS 9); unchanged below, where the pipeline's cap applies.
    /// `measuresWholeView`: see ``ProposalRecordingLayout/measuresWholeView``.
    @ViewBuilder
    func recordingLayoutProposal(into recorder: any LayoutProposalRecording, measuresWholeView: Bool = false) -> some View {
        if #available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *) {
            ProposalRecordingLayout(recorder: recorder, measuresWholeView: measuresWholeView) { self }
        } else {
            self
        }
    }
}
#endif
