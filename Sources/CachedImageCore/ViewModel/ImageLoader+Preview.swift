import Foundation

/// Progressive JPEG previews (requests with ``ImageRequest/Options/showProgressivePreviews``): the
/// latest preview of the current load is shown as a success until the final image replaces it
/// in one update, with no placeholder in between. A preview never outlives its load: a new
/// request, a cancellation, leaving the screen, a failure or the final image drop it, and a
/// preview arriving after any of these is ignored.
extension ImageLoader {
    /// The latest preview of the current load (``ImageResponse/isPreview``), while it loads.
    package var preview: ImageResponse? {
        guard case .loading = phase else { return nil }
        return previewState?.response
    }

    /// What a view shows for `phase` (``phase`` or ``phase(for:)``'s answer): a `.loading`
    /// phase with a preview becomes `.success` with the preview; a failure after the request's
    /// smaller image showed keeps it, with the error (``ImageLoader+LowResolution``); anything
    /// else is shown as is.
    package func shownPhase(_ phase: Phase) -> Phase {
        switch phase {
        case .loading:
            guard let preview else { return phase }
            return .success(preview)
        case .failure(let error):
            return shownFailure(error)
        case .empty, .success:
            return phase
        }
    }

    /// The handler the current load's task calls with each preview, from any thread: numbered
    /// there, so that previews that reach the main actor out of order never step back.
    func previewHandler(generation: Int) -> @Sendable (ImageResponse) -> Void {
        let counter = Locked(0)
        return { [weak self] response in
            let number = counter.withLock { count -> Int in
                count += 1
                return count
            }
            Task { @MainActor [weak self] in
                self?.receivedPreview(response, number: number, generation: generation)
            }
        }
    }

    private func receivedPreview(_ response: ImageResponse, number: Int, generation: Int) {
        guard generation == self.generation, case .loading = phase else { return }
        if let current = previewState, current.number >= number { return }
        previewState = (response, number)
        onChange?(phase)
    }
}
