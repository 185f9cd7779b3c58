import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A smaller image first (``ImageRequest/lowResolutionURL``): while the full image loads, a
/// smaller one shows as a preview (preview 0): the same image at the size a view last showed
/// it, else the thumbnail, from what a view showed (at any size) in the load's own turn, else
/// when the thumbnail's own load delivers. The full image replaces it in one update; a
/// progressive scan of the full image supersedes it; it never replaces a scan.
///
/// When the full image fails, the phase is a failure like any other (what recovery, the
/// off-screen rules and retries act on); only what the view shows keeps the smaller image,
/// with the error (``shownPhase(_:)``).
extension ImageLoader {
    /// The request for `request`'s smaller image: the same size, content mode, processors and
    /// options, for the other URL and keyed by it, without what only the full image asks for (a
    /// reload, previews, full resolution, HDR, a pin, a retry's insistence); with the full
    /// request's header fields only when both URLs have the same origin (a token for the API
    /// never goes to another host), never its cache directives; its network rules (cellular,
    /// constrained, timeout) and an offline cache policy stay. `nil` when it names no other URL.
    static func lowResolutionRequest(for request: ImageRequest) -> ImageRequest? {
        guard let url = request.lowResolutionURL, url != request.url else { return nil }
        var urlRequest = request.urlRequest
        urlRequest.url = url
        if ![.returnCacheDataDontLoad, .returnCacheDataElseLoad].contains(urlRequest.cachePolicy) {
            urlRequest.cachePolicy = .useProtocolCachePolicy // a reload is the full image's
        }
        let sameOrigin = request.url.map { Self.isSameOrigin($0, url) } ?? false
        urlRequest.allHTTPHeaderFields = (request.urlRequest.allHTTPHeaderFields ?? [:]).filter { field, _ in
            sameOrigin && !["cache-control", "pragma"].contains(field.lowercased())
        }
        var low = ImageRequest(
            urlRequest: urlRequest, priority: request.priority, contentMode: request.contentMode,
            options: request.options.subtracting(Self.fullImageOnlyOptions), constrainedNetworkPolicy: request.constrainedNetworkPolicy
        )
        low.processorChain = request.processorChain
        low.targetPixelSize = request.targetPixelSize
        low.pointSize = request.pointSize // after: setting the pixel size clears it
        low.diskCachePolicy = request.diskCachePolicy
        return low
    }

    /// What a request asks of its own image only.
    private static let fullImageOnlyOptions: ImageRequest.Options = [
        .reloadIgnoringLocalCacheData, .reloadRevalidatingCacheData, .skipFailureCache,
        .showProgressivePreviews, .decodeFullResolution, .decodeToHDR, .pinOnDisk,
    ]

    private static func isSameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? ["https": 443, "http": 80][url.scheme?.lowercased() ?? ""] }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && port(a) == port(b)
    }

    /// The smaller image a view of `request` can show right now, from memory: the same image
    /// at the size a view last showed it, else the thumbnail at any size a view showed it.
    /// Display only, flagged ``ImageResponse/isPreview``.
    func lowResolutionInMemory(for request: ImageRequest) -> ImageResponse? {
        guard let low = Self.lowResolutionRequest(for: request) else { return nil }
        let found: (DecodedImage, ImageRequest)? = pipeline.otherSizeImage(for: request).map { ($0, request) }
            ?? (pipeline.memoryCachedImage(for: low) ?? pipeline.otherSizeImage(for: low) ?? pipeline.shownImage(for: low)).map { ($0, low) }
        guard let (image, shownRequest) = found else { return nil }
        var response = memoryResponse(image, for: shownRequest)
        response.isPreview = true
        return response
    }

    /// Before load `generation` publishes its first phase: shows `request`'s smaller image from
    /// memory, or the one the previous load of the same URLs showed (`carried`: a resize), in
    /// that same update; or starts the thumbnail's own load, at the view's priority.
    func prepareLowResolution(for request: ImageRequest, generation: Int, carrying carried: ImageResponse? = nil) {
        guard let low = Self.lowResolutionRequest(for: request) else { return }
        if let shown = lowResolutionInMemory(for: request) ?? carried {
            lowResolution = shown
            previewState = (shown, 0)
            return
        }
        startLowResolutionTask(low, generation: generation)
    }

    /// A view back on screen after its load failed before the thumbnail came (its load stopped
    /// past the grace period): the thumbnail is shown, from memory, or asked again.
    func resumeLowResolutionAfterFailure() {
        guard case .failure = phase, lowResolution == nil, lowResolutionTask == nil, let request,
              let low = Self.lowResolutionRequest(for: request) else { return }
        if let shown = lowResolutionInMemory(for: request) {
            lowResolution = shown
            onChange?(phase)
            return
        }
        startLowResolutionTask(low, generation: generation)
    }

    private func startLowResolutionTask(_ low: ImageRequest, generation: Int) {
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

    /// The thumbnail arrived: shown while the full image loads (unless a scan of it shows), or
    /// beside the full image's failure if that came first.
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

    /// The thumbnail's load ends (the full image, or a stand-in for it, arrived; the load
    /// stopped). After a failure it goes on while the view is on screen, and what it shows
    /// stays until the next load.
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
