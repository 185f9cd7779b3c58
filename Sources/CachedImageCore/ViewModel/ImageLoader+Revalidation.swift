import Foundation

/// A stale image on screen (``ImageResponse/isStale``: the image the view showed since launch,
/// or the disk's copy after a relaunch) is revalidated behind it, as its headers require: the
/// view swaps to the new image only if it changed, never through a placeholder. A failure for
/// a passing reason (offline, a dropped connection, a `5xx`) keeps the image with the error
/// (``ImageResponse/revalidationError``) and asks again when ``FailureRecovery`` says; a failure
/// that will repeat (`404`, not an image) replaces it.
extension ImageLoader {
    /// Whether the image on screen is a stale one whose revalidation is in flight.
    package var isRevalidating: Bool { revalidation != nil }

    /// Asks the pipeline for the current request behind the image on screen (the disk's stale
    /// entry revalidated, or a download), at the off-screen priority while the view is away.
    /// Not while the network is known to be unreachable (the failure is reported at once and
    /// asked again when it comes back), nor for a URL the server confirmed in this appearance.
    /// `extraOptions` apply to this request only (``retry()``'s `.skipFailureCache`).
    func revalidate(adding extraOptions: ImageRequest.Options = []) {
        guard let request, let url = request.url, case .success = phase else { return }
        revalidation?.cancel()
        revalidation = nil
        if confirmedURL == url, !extraOptions.contains(.skipFailureCache) {
            answerAtEndOfTurn(.success(confirmedCopy()))
            return
        }
        guard (failureRecovery ?? .shared).isNetworkReachable else {
            answerAtEndOfTurn(.failure(ImagePipeline.Error.transport(url: url, underlying: URLError(.notConnectedToInternet))))
            return
        }
        let generation = self.generation
        if extraOptions.isEmpty, let inFlight = handedOverRevalidation, inFlight.request.url == url {
            // Another size of this URL is being asked about already: its answer counts here.
            handedOverRevalidation = nil
            revalidation = inFlight
            track(inFlight) { [weak self] result in self?.revalidated(result, generation: generation, task: inFlight) }
            return
        }
        var taskRequest = request
        taskRequest.options.formUnion(extraOptions)
        if !visibility.isOnScreen, let priority = offscreenBehavior.offscreenPriority {
            taskRequest.priority = min(priority, request.priority)
        }
        let task = pipeline.imageTask(with: taskRequest)
        revalidation = task
        track(task) { [weak self] result in self?.revalidated(result, generation: generation, task: task) }
    }

    /// A revalidation answered without a request, at the end of the turn (`body` may be
    /// rendering the image: nothing is published during it).
    private func answerAtEndOfTurn(_ result: Result<ImageResponse, any Error>) {
        let generation = self.generation
        scheduler.schedule(after: 0) { [weak self] in
            self?.revalidated(result, generation: generation, task: nil)
        }
    }

    /// The image on screen, as confirmed: no longer stale.
    private func confirmedCopy() -> ImageResponse {
        var response = phase.response!
        response.isStale = false
        response.revalidationError = nil
        return response
    }

    /// The revalidation `task` behind the image on screen ended with `result` (`task` is `nil`
    /// for one answered without a request, which counts only while none runs). A task that is
    /// no longer the revalidation (replaced, restarted) is ignored.
    func revalidated(_ result: Result<ImageResponse, any Error>, generation: Int, task: ImageTask?) {
        guard generation == self.generation, revalidation === task, let request, case .success(let shown) = phase else { return }
        revalidation = nil
        switch result {
        case .success(let response):
            if let url = response.request.url, response.source == .network || response.source == .revalidated { confirmedURL = url }
            pipeline.keepShown(response)
            let isThisSize = Self.isSameShape(response.request, request)
            if response.source == .network, !isThisSize {
                // New bytes, asked for through another size of this URL: this size is decoded
                // from them (the disk has them now), the image on screen kept meanwhile.
                leaveFailure()
                pipeline.forgetShownImage(for: request)
                start(request, keeping: shown)
            } else if let error = response.revalidationError, response.source != .network {
                // Served stale by the pipeline (the server could not be asked): still stale, and why.
                failedBehindImage(shown, error)
            } else if isThisSize, Self.isChanged(from: shown, to: response) {
                leaveFailure()
                update(.success(response))
            } else if shown.isStale || shown.revalidationError != nil, !response.isStale {
                // The same picture, now confirmed (a 304): the phase says so.
                leaveFailure()
                var confirmed = shown
                confirmed.isStale = false
                confirmed.revalidationError = nil
                confirmed.httpResponse = response.httpResponse ?? shown.httpResponse
                update(.success(confirmed))
            }
        case .failure(let error) where error is CancellationError:
            break
        case .failure(let error) where FailureRecovery.isTransient(error):
            // Offline, a dropped connection, a timeout, a 5xx: the image stays.
            failedBehindImage(shown, error)
        case .failure(ImagePipeline.Error.notCached):
            // Nothing may be asked (Low Data Mode's cache only, an offline request): not a
            // verdict on the image, which stays as it is.
            break
        case .failure(let error):
            // The server says the image is gone or broken (a 404, bytes that are no image):
            // the failure replaces it.
            leaveFailure()
            update(.failure(error))
            callbacks.onFailure?(error)
        }
    }

    /// The stale image stays on screen with `error` (reported once per failure) until the
    /// network comes back or the view returns (``FailureRecovery``).
    private func failedBehindImage(_ shown: ImageResponse, _ error: any Error) {
        var kept = shown
        kept.isStale = true
        kept.revalidationError = error as? ImagePipeline.Error
        update(.success(kept))
        waitForRecovery(after: error)
        callbacks.onFailure?(error)
    }

    /// Whether `a` and `b` decode the same way (target size, content mode, processors).
    static func isSameShape(_ a: ImageRequest, _ b: ImageRequest) -> Bool {
        a.targetPixelSize == b.targetPixelSize && a.contentMode == b.contentMode && a.processorChain.identifiers == b.processorChain.identifiers
    }

    /// Whether `response` shows another picture than `shown`: new bytes from the network, or
    /// another size. A `304` (`.revalidated`) or a stored copy is the same picture.
    static func isChanged(from shown: ImageResponse, to response: ImageResponse) -> Bool {
        response.source == .network || response.image.pixelSize != shown.image.pixelSize
    }
}
