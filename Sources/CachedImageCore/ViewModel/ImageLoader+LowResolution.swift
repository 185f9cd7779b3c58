import Foundation

/// A smaller image first (``ImageRequest/lowResolutionURL``): while the full image loads, the
/// smaller one shows as a preview (at once when a view showed it already, else when its own
/// load delivers); the full image replaces it in one update. A progressive scan of the full
/// image supersedes it; it never replaces a scan, nor the same image at another size.
///
/// When the full image fails, the phase is a failure like any other (what recovery, the
/// off-screen rules and retries act on); only what the view shows keeps the smaller image,
/// with the error (``shownPhase(_:)``).
extension ImageLoader {
    /// The request for `request`'s smaller image: the same request (headers, size, content mode,
    /// processors) for the other URL, keyed by it, without what only the full image asks for
    /// (a reload, previews, full resolution, a pin, a retry's insistence); `nil` when it names
    /// none, or its own URL.
    static func lowResolutionRequest(for request: ImageRequest) -> ImageRequest? {
        guard let url = request.lowResolutionURL, url != request.url else { return nil }
        var urlRequest = request.urlRequest
        urlRequest.url = url
        var low = ImageRequest(
            urlRequest: urlRequest, priority: request.priority, contentMode: request.contentMode,
            options: request.options.subtracting(Self.fullImageOnlyOptions), constrainedNetworkPolicy: request.constrainedNetworkPolicy
        )
        low.processorChain = request.processorChain
        if let pointSize = request.pointSize {
            low.pointSize = pointSize
        } else {
            low.targetPixelSize = request.targetPixelSize
        }
        low.diskCachePolicy = request.diskCachePolicy
        return low
    }

    /// What a request asks of its own image only.
    private static let fullImageOnlyOptions: ImageRequest.Options = [
        .reloadIgnoringLocalCacheData, .reloadRevalidatingCacheData, .skipFailureCache,
        .showProgressivePreviews, .decodeFullResolution, .decodeToHDR, .pinOnDisk,
    ]

    /// Shows `request`'s smaller image for load `generation`, unless the same image at another
    /// size stands in already: from what a view showed now, else when its own load delivers.
    func startLowResolution(for request: ImageRequest, generation: Int) {
        guard let low = Self.lowResolutionRequest(for: request), pipeline.otherSizeImage(for: request) == nil else { return }
        if let image = pipeline.memoryCachedImage(for: low) ?? pipeline.otherSizeImage(for: low) ?? pipeline.shownImage(for: low) {
            receivedLowResolution(memoryResponse(image, for: low), generation: generation)
            return
        }
        var sent = low
        if !visibility.isOnScreen, let priority = offscreenBehavior.offscreenPriority {
            sent.priority = min(priority, low.priority)
        }
        let task = pipeline.imageTask(with: sent)
        lowResolutionTask = task
        track(task) { [weak self] result in
            guard let self, self.lowResolutionTask === task else { return }
            self.lowResolutionTask = nil
            if case .success(let response) = result { self.receivedLowResolution(response, generation: generation) }
        }
    }

    /// The smaller image arrived: shown while the full one loads (unless a scan of it shows),
    /// or beside the full one's failure if that came first.
    private func receivedLowResolution(_ response: ImageResponse, generation: Int) {
        guard generation == self.generation, lowResolution == nil else { return }
        var preview = response
        preview.isPreview = true
        preview.isStale = false
        switch phase {
        case .loading where previewState == nil:
            previewState = (preview, 0)
        case .failure:
            break
        case .loading, .empty, .success:
            return
        }
        lowResolution = preview
        onChange?(phase)
    }

    /// The smaller image's load ends (the full image, or a stand-in for it, arrived; the load
    /// stopped). After a failure it goes on, and what it shows stays until the next load.
    func stopLowResolution() {
        lowResolutionTask?.cancel()
        lowResolutionTask = nil
    }

    /// `failure` as the view shows it: the smaller image the load showed, with the error beside
    /// it, when there was one and the error is the pipeline's; else the failure.
    func shownFailure(_ failure: any Error) -> Phase {
        guard var kept = lowResolution, let error = failure as? ImagePipeline.Error else { return .failure(failure) }
        kept.revalidationError = error
        return .success(kept)
    }
}
