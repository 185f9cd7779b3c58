import Foundation

extension ImageLoader {
    /// What a view wants to hear about its loads, on the main actor; each fires once per event,
    /// never because a view re-rendered, switched branches or came back on screen.
    ///
    /// ```swift
    /// loader.callbacks.onSuccess = { response in log(response.source) }
    /// ```
    package struct Callbacks {
        /// A load from disk or network starts (not for memory hits): the request as sent.
        package var onStart: (@MainActor (ImageRequest) -> Void)?
        /// The image is shown: once per request (again after ``ImageLoader/retry()``), including
        /// memory hits, but not when an image let go off screen comes back.
        package var onSuccess: (@MainActor (ImageResponse) -> Void)?
        /// The load failed (a cancellation is not a failure).
        package var onFailure: (@MainActor (any Error) -> Void)?
        /// Download progress, as published (at most 30 times a second). Setting it makes the
        /// loader report progress whatever ``ImageLoader/reportsProgress`` says.
        package var onProgress: (@MainActor (Progress) -> Void)?

        /// Callbacks for the events given; the others do nothing.
        package init(
            onStart: (@MainActor (ImageRequest) -> Void)? = nil,
            onSuccess: (@MainActor (ImageResponse) -> Void)? = nil,
            onFailure: (@MainActor (any Error) -> Void)? = nil,
            onProgress: (@MainActor (Progress) -> Void)? = nil
        ) {
            self.onStart = onStart
            self.onSuccess = onSuccess
            self.onFailure = onFailure
            self.onProgress = onProgress
        }
    }

    /// Whether a view should animate into `phase`: an image that arrived from disk or the
    /// network fades in; a memory hit (the first frame, a reused row) appears at once.
    package static func fadesIn(to phase: Phase) -> Bool {
        guard case .success(let response) = phase else { return false }
        return response.source != .memory
    }

    /// Calls ``Callbacks/onSuccess`` for the current request if it has not been told yet.
    func reportSuccess(_ response: ImageResponse) {
        guard let request, reportedSuccess != request else { return }
        reportedSuccess = request
        callbacks.onSuccess?(response)
    }

    /// A success adopted while `body` rendered is reported once the turn ends, never from
    /// inside the view update.
    func reportSuccessLater() {
        guard callbacks.onSuccess != nil else { return }
        scheduler.schedule(after: 0) { [weak self] in
            guard let self, let response = self.phase.response else { return }
            self.reportSuccess(response)
        }
    }
}
