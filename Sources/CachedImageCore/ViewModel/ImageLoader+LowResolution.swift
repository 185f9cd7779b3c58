import Foundation

/// A smaller image first (``ImageRequest/lowResolutionURL``): shown as a preview while the full
/// image loads (at once when it is in memory), replaced by the full image in one update, kept
/// with the error when the full image fails. A progressive scan of the full image supersedes it;
/// it never replaces one.
extension ImageLoader {
    /// The request for `request`'s low-resolution image: the same size, content mode, options
    /// and processors; `nil` when it names none (or its own URL).
    static func lowResolutionRequest(for request: ImageRequest) -> ImageRequest? {
        guard let url = request.lowResolutionURL, url != request.url else { return nil }
        var low = ImageRequest(
            url: url,
            priority: request.priority,
            targetPixelSize: request.targetPixelSize,
            contentMode: request.contentMode,
            options: request.options.subtracting([.showProgressivePreviews, .decodeFullResolution]),
            constrainedNetworkPolicy: request.constrainedNetworkPolicy,
            processors: request.processors
        )
        low.diskCachePolicy = request.diskCachePolicy
        return low
    }

    /// The low-resolution image on screen while the current load goes on, if that is what
    /// shows (not a progressive scan).
    var shownLowResolution: ImageResponse? {
        guard let previewState, previewState.number == 0 else { return nil }
        return previewState.response
    }

    /// Shows `request`'s low-resolution image for load `generation`: from memory now, else when
    /// its own load delivers, unless the full image (or a scan of it) came first.
    func startLowResolution(for request: ImageRequest, generation: Int) {
        guard let low = Self.lowResolutionRequest(for: request) else { return }
        if let image = pipeline.memoryCachedImage(for: low) {
            receivedLowResolution(memoryResponse(image, for: low), generation: generation)
            return
        }
        let task = pipeline.imageTask(with: low)
        lowResolutionTask = task
        track(task) { [weak self] result in
            guard let self, case .success(let response) = result else { return }
            if self.lowResolutionTask === task { self.lowResolutionTask = nil }
            self.receivedLowResolution(response, generation: generation)
        }
    }

    private func receivedLowResolution(_ response: ImageResponse, generation: Int) {
        guard generation == self.generation, case .loading = phase, previewState == nil else { return }
        var preview = response
        preview.isPreview = true
        previewState = (preview, 0)
        onChange?(phase)
    }
}
