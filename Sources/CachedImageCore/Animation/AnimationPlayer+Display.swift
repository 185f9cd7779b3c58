import Foundation

extension AnimationPlayer {
    // MARK: Driven by the display (the `.display` driver: a display link's refreshes)

    /// The display refreshes at `timestamp` (on the clock's scale: `CADisplayLink.targetTimestamp`
    /// with a clock reading `CACurrentMediaTime()`): shows the frame due then if it changed
    /// (and only then reports a change), decodes what is missing, finishes a finite animation.
    package func displayDidRefresh(at timestamp: TimeInterval) {
        guard driver == .display, playback.isRunning, let decoder, !frameDecodingFailed else { return }
        let step = AnimationDisplayStep(
            playback, at: timestamp, displayed: displayedFrame == nil ? nil : displayedIndex,
            prefetchedAfter: prefetchedAfter, isBuffered: { buffer.frame(at: $0) != nil }
        )
        if let index = step.show, let frame = buffer.frame(at: index) {
            show(frame, at: index)
        }
        if step.isFinished {
            playback.settle(at: timestamp)
            onChange?()
            update()
            onFinish?()
            return
        }
        guard let index = step.decode, displayDecode == nil else { return }
        if step.isPrefetch { prefetchedAfter = displayedIndex }
        displayDecodeCount += 1
        let token = displayDecodeCount
        displayDecode = token
        let generation = loopGeneration
        Task { [weak self] in
            let frame = await decoder.frame(at: index)
            guard let self else { return }
            if self.displayDecode == token { self.displayDecode = nil }
            self.didDecode(frame, at: index, from: decoder, generation: generation)
        }
    }
}
