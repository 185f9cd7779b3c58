import Foundation

/// Progressive JPEG previews (``ImageRequest/Options/showProgressivePreviews``): decoded from the
/// bytes a download has received so far, at the request's target size with its processors,
/// handed to the image job's subscribers, and never stored in the memory or disk cache.
extension ImageJobs {
    /// The previewer for an image job that downloads, unless its request skips previews:
    /// with ``ImageRequest/Options/showProgressivePreviews`` it previews on any link; otherwise
    /// only once the link is measured slow and while an observer takes previews
    /// (``ProgressivePreviewer/Wanted``).
    func makePreviewer(
        _ request: ImageRequest,
        url: URL,
        context: TaskCoalescer<ImageTaskKey, DecodedResult>.JobContext
    ) -> ProgressivePreviewer? {
        guard !request.options.contains(.skipProgressivePreviews), progressivePreviewPolicy.maximumPreviewCount > 0 else { return nil }
        let wanted: ProgressivePreviewer.Wanted
        if request.options.contains(.showProgressivePreviews) {
            wanted = { true }
        } else {
            let link = fetcher.link
            wanted = {
                guard let slow = link.isSlow else { return nil }
                return slow ? (context.takesUpdates ? true : nil) : false
            }
        }
        let incremental = incrementalDecoder()
        return ProgressivePreviewer(
            policy: progressivePreviewPolicy,
            wanted: wanted,
            clock: clock,
            decode: { [self] prefix in try await decodePreview(prefix, request: request, url: url, incremental: incremental) },
            deliver: { image in context.report(.preview(image)) }
        )
    }

    /// The incremental decoder for one image's previews, where the pipeline's decoder has one
    /// (ImageIO's); `nil` elsewhere.
    private func incrementalDecoder() -> (any IncrementalPreviewDecoding)? {
        #if canImport(ImageIO)
        if decoder is ImageIODecoder { return ImageIOIncrementalDecoder() }
        #endif
        return nil
    }

    /// Decodes a prefix ending after a complete scan as the final image would be decoded (the
    /// decoder for its format, the request's target within the pixel limit, on the decoding
    /// queue under its memory budget, then the processors), keeping it nowhere. `incremental`
    /// (when the format's decoder is the pipeline's own) is fed the prefix as it is; any other
    /// decoder gets it closed with `EOI`, a whole image.
    func decodePreview(
        _ prefix: Data, request: ImageRequest, url: URL, incremental: (any IncrementalPreviewDecoding)?
    ) async throws -> DecodedImage {
        var closed = prefix
        closed.append(contentsOf: [0xFF, 0xD9])
        guard let info = ImageInfo(data: closed) else { throw ImagePipeline.Error.invalidImage(url: url, format: .jpeg, reason: "the received part has no readable header") }
        let decoder = decoderRegistry.decoder(for: info, fallback: self.decoder)
        let target = try pixelLimit.limited(request.decodingTarget(maximumSize: maximumDecodedPixelSize), for: info, decoder: decoder, url: url)
        var image: DecodedImage
        if let incremental, type(of: decoder) == type(of: self.decoder) {
            image = try await decodingQueue.run(bytes: decodingBytes(info: info, target: target)) {
                try incremental.decodePreview(prefix, info: info, target: target)
            }
        } else {
            image = try await decodeImage(closed, info: info, target: target, decoder: decoder)
        }
        try pixelLimit.checkDecoded(image, info: info, url: url)
        image.sourcePixelSize = request.processorChain.isEmpty ? info.pixelSize : nil
        if !request.processorChain.isEmpty {
            // As the final image's: on a decoding thread under the budget, never the shared pool.
            let chain = request.processorChain, input = image
            image = try await decodingQueue.run(bytes: DecodedImage.bitmapCost(of: input.pixelSize)) {
                try chain.apply(to: input, url: url)
            }
        }
        return image
    }

    /// What a task subscribes to its job with: the image's size as soon as the body's first
    /// bytes give it (kept on the task, ``ImageTask/imageSize``, and passed to `size`); for a
    /// task that observes its job, also each preview of its image job, as a response flagged
    /// ``ImageResponse/isPreview``, and the stored copy shown while it is revalidated, flagged
    /// ``ImageResponse/isStale``.
    func jobUpdates(
        for task: ImageTask,
        request: ImageRequest,
        preview: (@Sendable (ImageResponse) -> Void)?,
        stale: (@Sendable (ImageResponse) -> Void)?,
        size: (@Sendable (PixelSize) -> Void)?
    ) -> @Sendable (JobUpdate) -> Void {
        { update in
            let metrics = TaskMetrics(startDate: task.startDate, duration: task.elapsedTime, isCoalesced: false, bytesDownloaded: 0)
            switch update {
            case .preview(let image):
                preview?(ImageResponse(image: image, request: request, source: .network, metrics: metrics, isPreview: true))
            case .stale(let result):
                var response = ImageResponse(
                    image: result.image, request: request, source: result.source, metrics: metrics, httpResponse: result.httpResponse
                )
                response.displayRetention = result.displayRetention
                response.mark(result.staleness)
                stale?(response)
            case .imageSize(let pixelSize):
                if task.noteImageSize(pixelSize) { size?(pixelSize) }
            case .bytes, .restarted:
                break
            }
        }
    }
}
