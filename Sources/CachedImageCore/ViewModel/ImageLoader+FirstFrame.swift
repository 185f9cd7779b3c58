import Foundation

/// What a view shows before any task of its own answers: the first frame's image (memory, the
/// image it showed since launch, a small disk entry whatever its freshness), and the stored
/// copy a load finds stale, shown as soon as it is decoded while the server is asked.
extension ImageLoader {
    /// `request` becomes the current one.
    func adopt(_ request: ImageRequest) {
        if self.request != request {
            reportedSuccess = nil
            showedImage = false
            if self.request?.url != request.url { confirmedURL = nil }
        }
        self.request = request
        loadedPipeline = ObjectIdentifier(pipeline)
    }

    /// A first frame for the current request becomes the state without a change being
    /// published; a stale one is revalidated behind it.
    func adoptSilently(_ response: ImageResponse) {
        pause = nil
        addedOptions = []
        previousResponse = nil
        phase = .success(response)
        showedImage = true
        pipeline.keepShown(response)
        if let request { pipeline.noteShown(request) }
        if response.isStale { revalidate() }
    }

    /// The image for `request`'s first frame, without waiting (``ImagePipeline/firstFrameImage(for:)``):
    /// memory, else the image a view showed since launch (HTML's list of available images),
    /// else a small disk entry, the latter two whatever their freshness (a stale one says so:
    /// ``ImageResponse/isStale``). The disk is read once per request: after a miss, memory only
    /// until that request has shown an image.
    func firstFrame(for request: ImageRequest) -> ImageResponse? {
        let pipelineID = ObjectIdentifier(pipeline)
        if let miss = firstFrameMiss, miss.request == request, miss.pipeline == pipelineID {
            if let image = pipeline.cachedImage(for: request) { return Self.memoryResponse(image, for: request, pipeline: pipeline) }
            guard let image = pipeline.shownImage(for: request) else { return nil }
            var response = Self.memoryResponse(image, for: request, pipeline: pipeline)
            response.isStale = true // kept because the memory cache would no longer serve it
            response.displayRetention = .whenShown
            return response
        }
        let response = pipeline.firstFrameImage(for: request)
        firstFrameMiss = response == nil ? (request, pipelineID) : nil
        return response
    }

    func memoryResponse(_ image: DecodedImage, for request: ImageRequest) -> ImageResponse {
        Self.memoryResponse(image, for: request, pipeline: pipeline)
    }

    private static func memoryResponse(_ image: DecodedImage, for request: ImageRequest, pipeline: ImagePipeline) -> ImageResponse {
        ImageResponse(
            image: image, request: request, source: .memory,
            metrics: TaskMetrics(startDate: pipeline.configuration.clock.now, duration: 0, isCoalesced: false, bytesDownloaded: 0)
        )
    }

    /// The handler the current load's task calls with the stored copy it found stale, from any
    /// thread.
    func staleHandler(generation: Int) -> @Sendable (ImageResponse) -> Void {
        { [weak self] response in
            Task { @MainActor [weak self] in self?.receivedStale(response, generation: generation) }
        }
    }

    /// The load found the disk's copy stale and decoded it: shown at once (no placeholder while
    /// the server is asked); the load goes on as its revalidation.
    private func receivedStale(_ response: ImageResponse, generation: Int) {
        guard generation == self.generation, case .loading = phase, let task else { return }
        revalidation = task
        self.task = nil
        progressInbox = nil
        previewState = nil
        previousResponse = nil
        addedOptions = []
        pipeline.keepShown(response)
        update(.success(response))
        reportSuccess(response)
    }
}
