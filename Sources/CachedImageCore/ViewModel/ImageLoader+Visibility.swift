import Foundation

extension ImageLoader {
    /// Whether the view counts as on screen: no ``didDisappear()`` yet, or more appearances
    /// than disappearances.
    package var isOnScreen: Bool { visibility.isOnScreen }

    /// The view (or one of its branches) appeared. The load gets its own priority back; a load
    /// cancelled off screen starts again, an image let go off screen comes back (from the
    /// memory cache synchronously when it is there), and a transient failure is asked again
    /// if the view was away past its grace period (or the app or the network came back since:
    /// ``FailureRecovery``). Calls are counted against ``didDisappear()``.
    package func didAppear() {
        if !visibility.isOnScreen || !visibility.isReported { appearedAt = scheduler.clock.now }
        var isNewAppearance = false
        if !visibility.isOnScreen, let left = disappearedAt,
           scheduler.clock.now.timeIntervalSince(left) >= offscreenBehavior.gracePeriod ?? OffscreenBehavior.automatic.gracePeriod ?? 0 {
            // A new appearance, not a branch swap: an image that may have gone stale is asked
            // about again (a view whose image was let go does so as it takes it back).
            confirmedURL = nil
            isNewAppearance = true
        }
        disappearedAt = nil
        visibility.appear()
        offscreenCheckToken += 1 // a pending off-screen check finds the view back
        guard let request, visibility.isOnScreen else { return }
        lowResolutionTask?.setPriority(request.priority) // a thumbnail still coming, after a failure too
        resumeLowResolutionAfterFailure()
        switch phase {
        case .loading:
            task?.setPriority(request.priority)
        case .empty:
            if pause == .suspended || pause == .released {
                start(request, adding: addedOptions)
            }
        case .success(let shown) where isNewAppearance && shown.displayRetention != .never && revalidation == nil:
            // Kept while away (`.lowerPriority`): revalidated as its headers require (a fresh
            // one answers from memory, with no request).
            failureIsStale = false
            revalidate()
        case .failure, .success:
            // A transient failure (of the load, or of the revalidation behind a stale image)
            // asked again after the view was away past its grace period, or the app or the
            // network came back meanwhile (FailureRecovery).
            if failureIsStale { askAgain(request) }
        }
    }

    /// The view (or one of its branches) disappeared. When no appearance is left outstanding,
    /// ``offscreenBehavior`` applies: the load's priority drops, and after the grace period (if
    /// the view has not come back) the load is cancelled and the image let go. A view flung past
    /// (on screen a few frames, nothing shown) gets no grace period (`OffscreenGrace`).
    /// A disappearance without a matching appearance is absorbed: it never makes the count negative.
    package func didDisappear() {
        let wasOnScreen = visibility.isOnScreen
        visibility.disappear()
        guard wasOnScreen, !visibility.isOnScreen else { return }
        let visibleTime = appearedAt.map { scheduler.clock.now.timeIntervalSince($0) }
        appearedAt = nil
        disappearedAt = scheduler.clock.now
        flung = OffscreenGrace.gracePeriod(offscreenBehavior, visibleTime: visibleTime, showedImage: showedImage) == 0
        if let priority = offscreenBehavior.offscreenPriority, let request {
            if case .loading = phase { task?.setPriority(min(priority, request.priority)) }
            // A thumbnail still coming after the full image failed drops too.
            lowResolutionTask?.setPriority(min(priority, request.priority))
        }
        armOffscreenCheckIfHidden()
    }

    /// While the view is off screen, schedules the end of its grace period.
    func armOffscreenCheckIfHidden() {
        offscreenCheckToken += 1
        guard !visibility.isOnScreen, var gracePeriod = offscreenBehavior.gracePeriod else { return }
        if flung, phase.isLoading { gracePeriod = 0 } // only a load stops at once: a failure or an image keeps its grace
        // An image the memory cache holds is let go at the end of the turn: a return takes it
        // back from memory before its first frame, and meanwhile the view does not keep it
        // alive past the cache's budget once the cache evicts it (a fling's rows in their grace).
        var isMemoryBacked = false
        if case .success(let shown) = phase, revalidation == nil, pipeline.memoryHolds(shown) {
            gracePeriod = 0
            isMemoryBacked = true
        }
        let token = offscreenCheckToken
        scheduler.schedule(after: gracePeriod) { [weak self] in
            self?.offscreenGraceEnded(token: token, isMemoryBacked: isMemoryBacked)
        }
    }

    /// The grace period ended (or, `isMemoryBacked`, the turn did, for an image the memory
    /// cache holds): if the view is still off screen (and nothing changed since the check was
    /// armed), cancel its load or let go of its image.
    private func offscreenGraceEnded(token: Int, isMemoryBacked: Bool = false) {
        guard token == offscreenCheckToken, !visibility.isOnScreen, request != nil else { return }
        switch phase {
        case .loading:
            stopCurrentTask()
            previousResponse = nil
            pause = .suspended
            update(.empty)
        case .success:
            releaseShownImage()
            stopCurrentTask() // a revalidation behind a kept image starts again with the view
            leaveFailure()
            // The next appearance revalidates again; one within the grace period (an image let
            // go early, from memory) does not: `didAppear` decides by the time away.
            if !isMemoryBacked { confirmedURL = nil }
            previousResponse = nil
            pause = .released
            update(.empty)
        case .empty where previousResponse != nil:
            previousResponse = nil
            update(.empty)
        case .failure(let error):
            // Away long enough: a transient failure is asked again when the view returns (a
            // thumbnail still coming for it stops; a return asks for it again).
            if FailureRecovery.isTransient(error) { failureIsStale = true }
            stopLowResolution()
            confirmedURL = nil
        case .empty:
            break
        }
    }
}
