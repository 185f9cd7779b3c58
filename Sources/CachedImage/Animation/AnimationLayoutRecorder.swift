#if canImport(SwiftUI) && canImport(ImageIO)
import CachedImageCore
import Foundation
import SwiftUI

/// What `CachedAnimatedImage` learns from its layout: each placement recorded into its
/// player's sizing (core's `AnimationSizing`, the still images' rule), so frames decode at the
/// size they are drawn. One per player, used on the main thread only (SwiftUI lays out there).
///
/// A placement that changes the request to load loads it after the layout pass (the first
/// frame on screen stays until the new size's arrives).
final class AnimationLayoutRecorder: LayoutProposalRecording, @unchecked Sendable {
    /// The player the placements size (weak: the player owns this recorder).
    weak var player: AnimationPlayer<AnimatedFrameSource>?
    /// The display's scale, set by the view's `body`.
    var displayScale: Double = 1
    private var isChangePending = false

    func record(proposedWidth: Double?, proposedHeight: Double?, content: CGSize) {
        // SwiftUI lays out on the main thread: recorded at once, so the `onAppear` that follows
        // loads at this size.
        MainThreadCallback.make { [weak self] in
            self?.recordOnMainActor(width: proposedWidth, height: proposedHeight, content: content)
        }()
    }

    @MainActor
    private func recordOnMainActor(width: Double?, height: Double?, content: CGSize) {
        guard let player else { return }
        let changed = player.recordLayout(
            width: width,
            height: height,
            content: (Double(content.width), Double(content.height)),
            displayScale: displayScale
        )
        guard changed, !isChangePending else { return }
        // Not during the layout pass: loading publishes the player's state.
        isChangePending = true
        Task { @MainActor [weak self] in
            guard let self else { return }
            isChangePending = false
            player.applyLayout()
        }
    }
}
#endif
