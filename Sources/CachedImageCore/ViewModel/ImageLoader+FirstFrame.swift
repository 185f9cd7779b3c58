import Foundation

/// What a view shows before any task of its own answers: the first frame's image (memory, the
/// image it showed since launch, a small disk entry whatever its freshness), the same image at
/// another size while its own loads, and the stored copy a load finds stale, shown as soon as it
/// is decoded while the server is asked.
extension ImageLoader {
    /// The image to keep on screen while `request` loads (pairs with ``phase(for:)`` before
    /// ``load(_:)`` runs): with ``keepsPreviousImage``, the last success of another request;
    /// else, while the view is on screen, the same image at the size a view last showed it, if
    /// it is in memory (a view's first `body` before its layout gives it a size, a view asking
    /// for a larger size), or else its smaller image (``ImageRequest/lowResolutionURL``) a view
    /// showed, so no placeholder shows while `request`'s own image comes.
    package func previousResponse(for request: ImageRequest) -> ImageResponse? {
        // Kept by this load (keepsPreviousImage, or an image replaced through another size's
        // revalidation), or the success of the request that `request` is replacing.
        if isCurrent(request), let previousResponse { return previousResponse }
        if keepsPreviousImage, !isCurrent(request), let previous = phase.response ?? previousResponse { return previous }
        // Only until the request's own image comes: before its load starts, or while it loads
        // (not once cancelled, failed or shown), and only on screen.
        if isCurrent(request), !phase.isLoading { return nil }
        guard visibility.isOnScreen, request.url != nil else { return nil }
        return standIn(for: request)
    }

    /// The image ``previousResponse(for:)`` shows for `request` in place of a placeholder,
    /// looked up once per request and load (`body` asks on every render).
    private func standIn(for request: ImageRequest) -> ImageResponse? {
        if let standIn = standInLookup, standIn.generation == generation, standIn.request == request {
            return standIn.response
        }
        // The same image at another size, or (first) the request's smaller image (``ImageRequest/lowResolutionURL``).
        let response = request.lowResolutionURL != nil
            ? lowResolutionInMemory(for: request)
            : pipeline.otherSizeImage(for: request).map { memoryResponse($0, for: request) }
        standInLookup = (request, generation, response)
        return response
    }

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
            if let image = pipeline.memoryCachedImage(for: request) { return Self.memoryResponse(image, for: request, pipeline: pipeline) }
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
        stopLowResolution()
        lowResolution = nil
        progressInbox = nil
        previewState = nil
        previousResponse = nil
        addedOptions = []
        pipeline.keepShown(response)
        update(.success(response))
        reportSuccess(response)
    }
}
