#if canImport(SwiftUI) && canImport(ImageIO)
import CachedImageCore
import CoreGraphics
import Foundation
import SwiftUI

/// Plays an animated image: frames decoded on demand off the main actor into a bounded
/// ``AnimationFrameBuffer``, shown when ``AnimationTimeline`` says, paused while off screen.
///
/// The buffer's bytes are registered in the pipeline's memory cache under a key of their own
/// (the request's key with the processor identifier `cachedimage.animation-frames`), so they
/// push other images out like any decoded image; when the memory cache evicts that entry
/// (memory pressure), the player keeps only the frame on screen and decodes the others again.
@MainActor
final class AnimatedImagePlayer: ObservableObject {
    /// The frame on screen.
    @Published private(set) var frame: CGImage? {
        didSet { onFrameChange?(frame) }
    }

    /// Called with every new frame (the UIKit view draws through this).
    var onFrameChange: ((CGImage?) -> Void)?

    /// The most bytes of decoded frames kept. Default: 16 MB.
    var frameBufferLimit = 16 * 1024 * 1024

    private var frameSource: AnimatedFrameSource?
    private var buffer = AnimationFrameBuffer<SendableFrame>(frameCount: 1, costLimit: 0)
    /// Playback time already played before the current run (pauses excluded).
    private var playedTime: TimeInterval = 0
    private var shownIndex = 0
    private var playback: Task<Void, Never>?
    private var loading: Task<Void, Never>?
    private var loadedRequest: ImageRequest?
    private weak var pipeline: ImagePipeline?
    private var costKey: ImageCacheKey?

    /// Loads `request`'s bytes and starts playing unless `isPaused`.
    func load(_ request: ImageRequest, pipeline: ImagePipeline, isPaused: Bool) {
        guard request != loadedRequest else {
            isPaused ? pause() : resume()
            return
        }
        reset()
        loadedRequest = request
        #if canImport(UIKit) && !os(watchOS)
        AppLifecycleObserver.install(for: pipeline)
        #endif
        self.pipeline = pipeline
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

    /// Continues from where playback paused.
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
        buffer = AnimationFrameBuffer(frameCount: 1, costLimit: 0)
        playedTime = 0
        shownIndex = 0
        frame = nil
        loadedRequest = nil
        updateCost()
    }

    private func showFirstFrameIfEmpty(_ first: CGImage) {
        if frame == nil { frame = first }
    }

    private func start(_ source: AnimatedFrameSource, request: ImageRequest, isPaused: Bool) {
        frameSource = source
        buffer = AnimationFrameBuffer(frameCount: source.info.frameCount, costLimit: frameBufferLimit)
        costKey = ImageCacheKey(
            cacheKey: request.cacheKey,
            targetSize: request.targetSize,
            processorIdentifiers: ["cachedimage.animation-frames"]
        )
        if !isPaused { resume() }
    }

    private static var now: TimeInterval { ProcessInfo.processInfo.systemUptime }

    /// Shows the frame the timeline says, prefetches the next one, sleeps until it is due.
    private func play() async {
        guard let source = frameSource else { return }
        let timeline = AnimationTimeline(source.info)
        let startedAt = Self.now - playedTime
        defer { playedTime = Self.now - startedAt }
        while !Task.isCancelled {
            let position = timeline.position(at: Self.now - startedAt)
            guard let current = await decodedFrame(position.frame, from: source) else { return }
            if Task.isCancelled { return }
            shownIndex = position.frame
            frame = current.cgImage
            guard let nextChange = position.nextChange else { return } // Finished: rest on the last frame.
            async let upcoming = decodedFrame((position.frame + 1) % source.info.frameCount, from: source)
            let wait = max(0, nextChange - (Self.now - startedAt))
            try? await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
            _ = await upcoming
        }
    }

    /// Frame `index` from the buffer, or decoded off the main actor and buffered.
    private func decodedFrame(_ index: Int, from source: AnimatedFrameSource) async -> SendableFrame? {
        if let buffered = buffer.frame(at: index) { return buffered }
        let decoded = await Task.detached(priority: .userInitiated) { source.frame(at: index) }.value
        guard let decoded, frameSource === source else { return decoded }
        if costWasEvicted() {
            // The memory cache let go of the buffer's cost: memory is tight.
            buffer.trim(toCost: 0, current: shownIndex)
        }
        buffer.insert(decoded, at: index, cost: decoded.cost, current: shownIndex)
        updateCost()
        return decoded
    }

    private func costWasEvicted() -> Bool {
        guard let costKey, buffer.totalCost > 0, let cache = pipeline?.memoryCache else { return false }
        return cache.value(forKey: costKey) == nil
    }

    /// Registers the buffer's bytes with the memory cache (or removes them when empty).
    private func updateCost() {
        guard let costKey, let cache = pipeline?.memoryCache else { return }
        let cost = buffer.totalCost
        guard cost > 0, let info = frameSource?.info else {
            _ = cache.removeValue(forKey: costKey)
            return
        }
        let marker = DecodedImage(image: nil, data: nil, format: info.format, pixelSize: PixelSize(width: 0, height: 0), cost: cost)
        cache.setValue(marker, forKey: costKey, cost: cost)
    }
}
#endif
