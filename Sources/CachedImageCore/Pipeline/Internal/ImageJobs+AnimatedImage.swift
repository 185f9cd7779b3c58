import Foundation

extension ImageJobs {
    /// The first frame and, for an animation, its bytes (`ImagePipeline/animatedImage(for:)`):
    /// memory first (the first frame, and the bytes or a "still" marker next to it), else the
    /// data stage once and a decode of those bytes.
    func animatedImage(_ task: ImageTask) async throws -> AnimatedImageResponse {
        instrumentation.record(.taskStarted(id: task.id, url: task.request.url))
        var bytes: AnimationBytes?
        let response = try await reporting(task) {
            let request: ImageRequest
            let resolvedURL: URL
            do {
                (request, resolvedURL) = try resolver.resolve(task.request)
            } catch {
                throw error as? ImagePipeline.Error ?? .invalidURL(task.request.url)
            }
            let (result, animationBytes) = try await firstFrameAndBytes(request, url: resolvedURL)
            bytes = animationBytes
            return (request, result, result.isCoalesced)
        }
        return AnimatedImageResponse(image: response, data: bytes?.data, animation: bytes?.animation)
    }

    private typealias AnimationBytes = (data: Data, animation: AnimatedImageInfo)

    private func firstFrameAndBytes(_ request: ImageRequest, url: URL) async throws -> (DecodedResult, AnimationBytes?) {
        let memoryFirstFrame = memoryImage(for: request, counting: .hitsAndMisses)
        if let first = memoryFirstFrame {
            let fromMemory = memoryResult(first)
            if !request.processorChain.isEmpty || !Self.mayBeAnimated(first.image.format) {
                return (fromMemory, nil)
            }
            // Bytes are kept only for responses that do not vary (under the plain key).
            if first.key == ImageCacheKey(request), let kept = memoryCache?.value(forKey: Self.animationBytesKey(request)) {
                // Bytes kept next to the first frame, or the marker saying it is a still image.
                let bytes = kept.data.flatMap { data in Self.animation(in: data).map { (data: data, animation: $0) } }
                return (fromMemory, bytes)
            }
        }
        // The data stage: disk, else one download shared with every other request for the bytes.
        let subscription = dataSubscription(request, url: url, priority: request.priority, lookup: nil, progress: nil)
        let response = try await subscription.value()
        try Task.checkCancellation()
        let animation = request.processorChain.isEmpty ? Self.animation(in: response.data) : nil
        let result: DecodedResult
        if let first = memoryFirstFrame, response.source == .memory || response.metadata?.vary.isEmpty ?? true {
            result = memoryResult(first)
        } else {
            // No frame in memory, or a response that now varies: decoded and kept under the key
            // its Vary calls for (which drops the plain-key frame of the older response).
            result = try await decode(response, request: request, url: url, isCoalesced: subscription.isCoalesced)
        }
        if request.processorChain.isEmpty, response.metadata?.vary.isEmpty ?? true {
            keepAnimationBytes(animation.map { (response.data, $0) }, format: response.info.format, request: request, lifetime: response.memoryLifetime)
        }
        return (result, animation.map { (response.data, $0) })
    }

    /// Keeps an animation's bytes (or, for a still image, a marker of no cost) in the memory
    /// cache next to its first frame, with the same lifetime.
    private func keepAnimationBytes(_ bytes: AnimationBytes?, format: ImageFormat, request: ImageRequest, lifetime: MemoryCacheLifetime) {
        guard let memoryCache, !request.options.contains(.skipMemoryCache) else { return }
        let key = Self.animationBytesKey(request)
        let cost = bytes?.data.count ?? 1
        let entry = DecodedImage(image: nil, data: bytes?.data, format: format, pixelSize: PixelSize(width: 0, height: 0), cost: cost)
        switch lifetime {
        case .unlimited:
            memoryCache.setValue(entry, forKey: key, cost: cost)
        case .until(let expiry):
            memoryCache.setValue(entry, forKey: key, cost: cost, expiresAt: expiry)
        case .doNotKeep:
            memoryCache.removeValue(forKey: key)
        }
    }

    /// Where an animation's bytes are kept in memory: one entry per image, whatever its size.
    static func animationBytesKey(_ request: ImageRequest) -> ImageCacheKey {
        ImageCacheKey(cacheKey: request.cacheKey, processorIdentifiers: ["cachedimage.animation-bytes"])
    }

    private static func mayBeAnimated(_ format: ImageFormat) -> Bool {
        format == .gif || format == .png || format == .webp
    }

    private static func animation(in data: Data) -> AnimatedImageInfo? {
        AnimatedImageInfo(data: data)
    }
}
