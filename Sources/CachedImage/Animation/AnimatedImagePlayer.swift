#if canImport(SwiftUI) && canImport(ImageIO)
import CachedImageCore
import CoreGraphics
import Foundation
import SwiftUI

/// Plays an animated image: frames decoded on demand off the main actor, a bounded buffer of
/// decoded frames whose bytes are counted in the pipeline's memory cache, paused while off
/// screen.
///
/// Buffering: when every frame fits in ``frameBufferLimit`` bytes the whole loop is kept after
/// the first pass; otherwise only the frame on screen and the next one are held, and frames are
/// decoded again each pass. The buffer's cost is registered in the memory cache under a key of
/// its own (the request's key with the processor identifier `cachedimage.animation-frames`), so
/// it pushes other images out like any decoded image; when the memory cache evicts it (memory
/// pressure), the player drops its buffer back to two frames.
@MainActor
final class AnimatedImagePlayer: ObservableObject {
    /// The frame on screen.
    @Published private(set) var frame: CGImage?

    /// The most bytes of decoded frames kept. Default: 16 MB.
    var frameBufferLimit = 16 * 1024 * 1024

    private var frameSource: AnimatedFrameSource?
    private var buffer: [Int: SendableFrame] = [:]
    private var keepsWholeLoop = false
    private var index = 0
    private var playsCompleted = 0
    private var playback: Task<Void, Never>?
    private var loading: Task<Void, Never>?
    private var loadedRequest: ImageRequest?
    private weak var memoryCacheOwner: ImagePipeline?
    private var costKey: ImageCacheKey?

    /// Loads `request`'s bytes and starts playing unless `isPaused`.
    func load(_ request: ImageRequest, pipeline: ImagePipeline, isPaused: Bool) {
        guard request != loadedRequest else {
            isPaused ? pause() : resume()
            return
        }
        reset()
        loadedRequest = request
        memoryCacheOwner = pipeline
        loading = Task { [weak self] in
            // The first frame through the pipeline (memory, disk, network); then the bytes,
            // which are on disk by now (or in flight, shared).
            guard let response = try? await pipeline.image(for: request) else { return }
            if let first = response.image.cgImage { self?.showFirstFrameIfEmpty(first) }
            guard let data = try? await pipeline.data(for: request).data else { return }
            let targetSize = request.targetSize
            let source = await Task.detached(priority: .userInitiated) {
                AnimatedFrameSource(data: data, targetSize: targetSize)
            }.value
            guard let self, !Task.isCancelled, let source else { return }
            self.start(source, request: request, isPaused: isPaused)
        }
    }

    /// Stops advancing frames (off screen); the frame on screen stays.
    func pause() {
        playback?.cancel()
        playback = nil
    }

    /// Continues from the frame on screen.
    func resume() {
        guard playback == nil, frameSource != nil else { return }
        playback = Task { [weak self] in await self?.play() }
    }

    /// Stops and releases every frame and the buffer's memory-cache cost.
    func reset() {
        pause()
        loading?.cancel()
        loading = nil
        frameSource = nil
        buffer = [:]
        index = 0
        playsCompleted = 0
        frame = nil
        loadedRequest = nil
        updateCost()
    }

    private func showFirstFrameIfEmpty(_ first: CGImage) {
        if frame == nil { frame = first }
    }

    private func start(_ source: AnimatedFrameSource, request: ImageRequest, isPaused: Bool) {
        frameSource = source
        costKey = ImageCacheKey(
            cacheKey: request.cacheKey,
            targetSize: request.targetSize,
            processorIdentifiers: ["cachedimage.animation-frames"]
        )
        if !isPaused { resume() }
    }

    private func play() async {
        guard let source = frameSource else { return }
        let info = source.info
        while !Task.isCancelled {
            guard let current = await decodedFrame(index, from: source) else { return }
            if Task.isCancelled { return }
            frame = current.cgImage
            // Decode the next frame while this one is shown.
            let next = (index + 1) % info.frameCount
            async let upcoming = decodedFrame(next, from: source)
            do {
                try await Task.sleep(nanoseconds: UInt64(info.frameDelays[index] * 1_000_000_000))
            } catch {
                _ = await upcoming
                return
            }
            _ = await upcoming
            if next == 0 {
                playsCompleted += 1
                if info.loopCount > 0 && playsCompleted >= info.loopCount { return }
            }
            index = next
        }
    }

    /// Frame `index` from the buffer, or decoded off the main actor and buffered within the
    /// limit.
    private func decodedFrame(_ index: Int, from source: AnimatedFrameSource) async -> SendableFrame? {
        if let buffered = buffer[index] { return buffered }
        let decoded = await Task.detached(priority: .userInitiated) { source.frame(at: index) }.value
        guard let decoded, frameSource === source else { return decoded }
        if buffer.isEmpty {
            keepsWholeLoop = decoded.cost.multipliedReportingOverflow(by: source.info.frameCount).partialValue <= frameBufferLimit
        }
        if costWasEvicted() {
            // The memory cache let go of the buffer's cost: memory is tight, keep two frames.
            keepsWholeLoop = false
        }
        if !keepsWholeLoop {
            let keep: Set<Int> = [self.index, (self.index + 1) % source.info.frameCount]
            buffer = buffer.filter { keep.contains($0.key) }
        }
        buffer[index] = decoded
        updateCost()
        return decoded
    }

    private var bufferedCost: Int {
        buffer.values.reduce(0) { $0 + $1.cost }
    }

    private func costWasEvicted() -> Bool {
        guard let costKey, !buffer.isEmpty, let cache = memoryCacheOwner?.memoryCache else { return false }
        return cache.value(forKey: costKey) == nil
    }

    /// Registers the buffer's bytes with the memory cache (or removes them when empty).
    private func updateCost() {
        guard let costKey, let cache = memoryCacheOwner?.memoryCache else { return }
        let cost = bufferedCost
        guard cost > 0, let info = frameSource?.info else {
            _ = cache.removeValue(forKey: costKey)
            return
        }
        let marker = DecodedImage(image: nil, data: nil, format: info.format, pixelSize: PixelSize(width: 0, height: 0), cost: cost)
        cache.setValue(marker, forKey: costKey, cost: cost)
    }
}
#endif
