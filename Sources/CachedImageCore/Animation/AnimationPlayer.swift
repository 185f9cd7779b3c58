import Foundation

/// Plays one animated image: loads it through an ``ImagePipeline`` (one fetch: first frame and
/// bytes), follows ``AnimationPlayback`` for whether and where to play, decodes frames on demand
/// through a ``SerialFrameDecoder`` into a bounded `AnimationFrameBuffer`, and accounts for
/// that buffer in the pipeline's memory cache under an entry of its own (``AnimationFrameCost``).
///
/// The Apple players (`CachedAnimatedImage`, `CachedAnimatedImageView`) only forward their
/// lifecycle here (visibility, app state, Reduce Motion, controls) and draw ``displayedFrame``.
///
/// - Its playback loop holds the player weakly and never across a suspension: when the owner
///   lets go of the player, the loop ends at its next step and no further frame is decoded.
/// - Paused (for any reason), it keeps only the frame on screen; so does a memory warning.
/// - Driven by the display (``Driver/display``), it advances only at ``displayDidRefresh(at:)``
///   (a display link's tick) by ``AnimationDisplayStep``, and reports a change only when the
///   frame on screen changes; ``wantsDisplayRefresh`` says when the link should run.
@MainActor
package final class AnimationPlayer<Source: AnimationFrameSource> {
    /// What the player shows.
    package enum Phase {
        /// Nothing requested, or loading with nothing to show yet.
        case empty
        /// The first frame, until (and unless) frames play.
        case firstFrame(DecodedImage)
        /// The load failed; ``retry()`` tries again.
        case failure(any Error)
    }

    /// The load's phase.
    package private(set) var phase: Phase = .empty
    /// The animation frame on screen, once one was decoded; draw it over the first frame.
    package internal(set) var displayedFrame: Source.Frame?
    /// Whether and where playback is.
    package internal(set) var playback = AnimationPlayback() {
        didSet {
            guard playback.wouldRunIfVisible != oldValue.wouldRunIfVisible else { return }
            onWantsToPlayChange?(playback.wouldRunIfVisible)
        }
    }
    /// Called when ``wouldPlayIfVisible`` changes: a view checks its visibility only while its
    /// animation would play if seen (``AnimationVisibility/wantsToPlay``).
    package var onWantsToPlayChange: ((Bool) -> Void)?
    /// The request being shown.
    package private(set) var request: ImageRequest?
    /// Called after every change of ``phase``, ``displayedFrame`` or ``playback``'s finished state.
    package var onChange: (() -> Void)?
    /// Called when a finite animation has played all its loops.
    package var onFinish: (() -> Void)?

    /// What advances the frames.
    package enum Driver: Sendable {
        /// The player's own loop, sleeping on its clock until the next frame is due.
        case clock
        /// The display: ``displayDidRefresh(at:)`` at each refresh while ``wantsDisplayRefresh``.
        case display
    }

    /// What advances the frames.
    package let driver: Driver
    /// Whether the display should call ``displayDidRefresh(at:)`` now (playing, frames
    /// available); always `false` for ``Driver/clock``.
    package private(set) var wantsDisplayRefresh = false
    /// Called when ``wantsDisplayRefresh`` changes: start or pause the display link.
    package var onWantsDisplayRefreshChange: ((Bool) -> Void)?
    /// The refresh rate the animation needs (``AnimationDisplayStep/framesPerSecond(for:maximum:)``),
    /// once it is known.
    package var preferredFramesPerSecond: Int? {
        playback.animation.map { AnimationDisplayStep.framesPerSecond(for: $0) }
    }
    /// The decode a display refresh asked for, while it runs (one at a time).
    var displayDecode: Int?
    var displayDecodeCount = 0
    /// Whether a decode a display refresh asked for is running.
    package var isDecodingForDisplay: Bool { displayDecode != nil }

    /// The most bytes of decoded frames kept. Default: 16 MB.
    package var frameBufferLimit = 16 * 1024 * 1024 {
        didSet { buffer.costLimit = max(0, frameBufferLimit); trimBuffer(toCost: buffer.costLimit) }
    }

    let clock: any UptimeClock
    private let makeSource: @Sendable (Data, DecodingTarget) -> Source?
    weak var pipeline: ImagePipeline?
    var decoder: SerialFrameDecoder<Source>?
    var buffer = AnimationFrameBuffer<Source.Frame>(frameCount: 1, costLimit: 0)
    private var cost: AnimationFrameCost?
    /// The index of ``displayedFrame``.
    var displayedIndex = 0
    /// Bumped by every load and reset: results of older loads are dropped.
    private var loadGeneration = 0
    /// Bumped by every start and stop of the loop: steps of older loops are dropped.
    var loopGeneration = 0
    private let tasks = AnimationPlayerTasks()
    /// The frame after which the next one was already prefetched (once per frame shown, so a
    /// buffer too small to keep it never loops on decodes).
    var prefetchedAfter: Int?
    /// A frame failed to decode: playback rests on the frame shown.
    var frameDecodingFailed = false
    /// ``displayedFrame`` is the previous size's, shown while the same picture loads at a new one.
    private var isShowingPreviousSize = false
    /// The view's own request and layout: the request it loads (``AnimationSizing``).
    package internal(set) var sizing = AnimationSizing()

    /// - Parameters:
    ///   - clock: The time playback follows (tests pass a manual one).
    ///   - makeSource: Makes the frame source for an animation's bytes and the request's decoding
    ///     target (its size and content mode, within the pipeline's cap: the first frame's rule),
    ///     off the main actor; `nil` when the platform cannot decode them.
    ///   - driver: What advances the frames: the player's own loop (default) or the display.
    package init(
        clock: any UptimeClock = SystemUptimeClock(),
        driver: Driver = .clock,
        makeSource: @escaping @Sendable (Data, DecodingTarget) -> Source?
    ) {
        self.clock = clock
        self.driver = driver
        self.makeSource = makeSource
    }

    /// Whether frames are being decoded and shown now.
    package var isPlaying: Bool { playback.isRunning }

    /// Whether frames would advance if the view were seen (``AnimationPlayback/wouldRunIfVisible``).
    package var wouldPlayIfVisible: Bool { playback.wouldRunIfVisible }

    /// The bytes of decoded frames held.
    package var bufferedCost: Int { buffer.totalCost }

    /// The indices of the decoded frames held.
    package var bufferedFrames: [Int] { buffer.indices }

    /// The memory-cache key accounting for this player's frames (one per player and image).
    package var frameCostKey: ImageCacheKey? { cost?.key }

    // MARK: Loading

    /// Shows `request` through `pipeline`; the same request and pipeline again is a no-op, so
    /// repeated `onAppear`s or `body` runs never restart an animation. `nil` clears the player.
    package func load(_ request: ImageRequest?, pipeline: ImagePipeline) {
        if request == self.request, pipeline === self.pipeline, request != nil { return }
        // Handover (a resize, a content mode): the download in flight for the same bytes is
        // held until the new load has joined it, so cancelling the old load never restarts it.
        let held = tasks.load != nil && pipeline === self.pipeline ? request.flatMap { pipeline.jobs.holdDownload(for: $0) } : nil
        // The same picture at another size (the layout grew) stays on screen until the new
        // decode arrives; a new picture never shows the previous one's frames.
        let kept = request.flatMap { AnimationSizing.keepsFrame(whileLoading: $0, after: self.request) } == true
            && pipeline === self.pipeline ? (phase, displayedFrame) : nil
        clear()
        self.request = request
        self.pipeline = pipeline
        defer { onChange?() }
        guard let request else { return }
        if let first = pipeline.memoryCachedImage(for: request) {
            // A memory hit: the first frame before this method returns.
            phase = .firstFrame(first)
        } else if let kept, case .firstFrame = kept.0 {
            phase = kept.0
            displayedFrame = kept.1
            isShowingPreviousSize = true
        }
        startLoad(request, pipeline: pipeline, holding: held)
    }

    /// Loads the current request again (after a failure: a failure the pipeline remembers is
    /// asked of the server again).
    package func retry() {
        guard let request, let pipeline else { return }
        reset()
        self.request = request
        self.pipeline = pipeline
        var insisting = request
        insisting.options.insert(.skipFailureCache)
        startLoad(insisting, pipeline: pipeline)
    }

    /// Stops playback, cancels the load and releases every frame and the memory-cache entry.
    package func reset() {
        clear()
        onChange?()
    }

    /// ``reset()`` without reporting the change.
    private func clear() {
        loadGeneration += 1
        tasks.load?.cancel()
        tasks.load = nil
        stopLoop()
        request = nil
        decoder = nil
        buffer = AnimationFrameBuffer(frameCount: 1, costLimit: 0)
        cost = nil
        displayedFrame = nil
        displayedIndex = 0
        frameDecodingFailed = false
        displayDecode = nil
        phase = .empty
        playback.setAnimation(nil, at: clock.now)
        isShowingPreviousSize = false
        syncDisplayRefresh()
    }

    private func startLoad(_ request: ImageRequest, pipeline: ImagePipeline, holding held: ImageJobs.DataSubscription? = nil) {
        let generation = loadGeneration
        let makeSource = self.makeSource
        tasks.load = Task { [weak self] in
            defer { held?.cancel() } // the new load has joined the download (or ended): let go
            let result: Result<(AnimatedImageResponse, Source?), any Error>
            do {
                let response = try await pipeline.animatedImage(for: request)
                var source: Source?
                if let data = response.data {
                    // The first frame's rule: the request's size and content mode, within the cap.
                    let target = request.decodingTarget(maximumSize: pipeline.configuration.maximumDecodedPixelSize)
                    source = try await pipeline.jobs.decodingQueue.run(bytes: 0) { makeSource(data, target) }
                }
                result = .success((response, source))
            } catch {
                result = .failure(error)
            }
            self?.finishLoad(result, generation: generation)
        }
    }

    private func finishLoad(_ result: Result<(AnimatedImageResponse, Source?), any Error>, generation: Int) {
        guard generation == loadGeneration else { return }
        tasks.load = nil
        let isCancelled = if case .failure(let error) = result { error is CancellationError } else { false }
        if isShowingPreviousSize, !isCancelled {
            // The frame of the previous size goes: the new first frame (or the failure) shows.
            displayedFrame = nil
            isShowingPreviousSize = false
        }
        switch result {
        case .failure(is CancellationError):
            break
        case .failure(let error):
            phase = .failure(error)
            onChange?()
        case .success(let (response, source)):
            phase = .firstFrame(response.image.image)
            if let source {
                decoder = SerialFrameDecoder(source)
                buffer = AnimationFrameBuffer(frameCount: source.info.frameCount, costLimit: frameBufferLimit)
                let loadGeneration = self.loadGeneration
                cost = AnimationFrameCost(cache: pipeline?.memoryCache) { [weak self] in
                    Task { @MainActor in self?.frameCostEvicted(loadGeneration: loadGeneration) }
                }
                playback.setAnimation(source.info, at: clock.now)
            }
            onChange?()
            update()
        }
    }

    // MARK: Conditions and controls

    /// The view went on or off screen (``AnimationVisibility``: window, hidden or transparent
    /// ancestors, geometry, occlusion; SwiftUI's onAppear/onDisappear).
    package func setVisible(_ visible: Bool) { change { $0.setVisible(visible, at: $1) } }
    /// The app entered the background (`false`) or became active again.
    package func setAppActive(_ active: Bool) { change { $0.setAppActive(active, at: $1) } }
    /// Reduce Motion turned on or off.
    package func setReduceMotionEnabled(_ enabled: Bool) { change { $0.setReduceMotionEnabled(enabled, at: $1) } }
    /// The app asks to play or stop (`isAnimating`, `startAnimating()`/`stopAnimating()`).
    package func setRequestedPlaying(_ playing: Bool) { change { $0.setRequestedPlaying(playing, at: $1) } }
    /// Replaces the file's loop count (`0`: forever); `nil` follows the file.
    package func setLoopCountOverride(_ count: Int?) { change { $0.setLoopCountOverride(count, at: $1) } }
    /// Playback rate (`1`: the file's timing).
    package func setSpeed(_ speed: Double) { change { $0.setSpeed(speed, at: $1) } }

    /// Memory is tight: keep only the frame on screen (playback decodes the others again).
    package func didReceiveMemoryWarning() {
        trimBuffer(toCost: 0)
    }

    /// The memory cache let go of this player's entry (eviction, a trim): the frames go with
    /// it, but the one on screen, which is charged again. Also for an animation fully buffered,
    /// which never decodes again.
    private func frameCostEvicted(loadGeneration generation: Int) {
        guard generation == loadGeneration else { return }
        let held = buffer.totalCost
        buffer.trim(toCost: 0, current: displayedIndex)
        // Only the frame on screen was left (or the cache would not keep even that): charging
        // it again would be let go again, and again.
        guard buffer.totalCost < held else { return }
        cost?.update(buffer.totalCost, format: playback.animation?.format ?? .other)
    }

    private func change(_ body: (inout AnimationPlayback, TimeInterval) -> Void) {
        let before = playback
        body(&playback, clock.now)
        // The same condition reported again (a second onAppear, a repeated didMoveToWindow)
        // changes nothing.
        guard playback != before else { return }
        if playback.isFinished != before.isFinished { onChange?() }
        update()
    }

    /// (Re)starts the loop to match ``playback``, or stops it and keeps only the frame on
    /// screen (paused, hidden, backgrounded or finished).
    func update() {
        stopLoop()
        if playback.isRunning {
            startLoop()
        } else {
            trimBuffer(toCost: 0)
        }
        syncDisplayRefresh()
    }

    private func syncDisplayRefresh() {
        let wants = driver == .display && playback.isRunning && decoder != nil && !frameDecodingFailed
        guard wants != wantsDisplayRefresh else { return }
        wantsDisplayRefresh = wants
        onWantsDisplayRefreshChange?(wants)
    }

    private func trimBuffer(toCost limit: Int) {
        buffer.trim(toCost: limit, current: displayedIndex)
        cost?.update(buffer.totalCost, format: playback.animation?.format ?? .other)
    }

    // MARK: Playback loop

    /// What the loop does next, decided on the main actor.
    private enum Step {
        case decode(Int, SerialFrameDecoder<Source>)
        case wait(until: TimeInterval)
    }

    /// Starts a loop that holds the player only during its synchronous steps, never while it
    /// decodes or sleeps: a player its owner released is freed, and the loop then ends.
    private func startLoop() {
        guard decoder != nil else { return }
        prefetchedAfter = nil
        guard driver == .clock else { return } // the display refreshes drive it
        loopGeneration += 1
        let generation = loopGeneration
        let clock = self.clock
        prefetchedAfter = nil
        tasks.loop = Task { [weak self] in
            while !Task.isCancelled {
                guard let step = self?.nextStep(generation) else { return }
                switch step {
                case .decode(let index, let decoder):
                    let frame = await decoder.frame(at: index)
                    self?.didDecode(frame, at: index, from: decoder, generation: generation)
                case .wait(let deadline):
                    do { try await clock.sleep(until: deadline) } catch { return }
                }
            }
        }
    }

    private func stopLoop() {
        loopGeneration += 1
        tasks.loop?.cancel()
        tasks.loop = nil
    }

    /// Shows the frame the timeline says (decoding it first if needed), prefetches the next one
    /// once, then waits until the frame changes; `nil` ends the loop.
    private func nextStep(_ generation: Int) -> Step? {
        guard generation == loopGeneration, playback.isRunning, let decoder, !frameDecodingFailed else { return nil }
        let now = clock.now
        let position = playback.position(at: now)
        if displayedFrame == nil || displayedIndex != position.frame {
            guard let buffered = buffer.frame(at: position.frame) else { return .decode(position.frame, decoder) }
            show(buffered, at: position.frame)
        }
        guard let nextChange = position.nextChange else {
            // All loops played: rest on the last frame.
            playback.settle(at: now)
            onChange?()
            update()
            onFinish?()
            return nil
        }
        let next = (position.frame + 1) % buffer.frameCount
        if prefetchedAfter != position.frame, buffer.frame(at: next) == nil {
            prefetchedAfter = position.frame
            return .decode(next, decoder)
        }
        guard let deadline = playback.clockTime(reaching: nextChange) else { return nil }
        return .wait(until: deadline)
    }

    func didDecode(_ frame: Source.Frame?, at index: Int, from source: SerialFrameDecoder<Source>, generation: Int) {
        // A decode finished for a stopped loop or an older image: drop it (paused players hold
        // only the frame on screen).
        guard generation == loopGeneration, source === decoder else { return }
        guard let frame else {
            frameDecodingFailed = true
            syncDisplayRefresh() // resting on the frame shown: the display link can stop
            return
        }
        if let cost, cost.wasEvicted(holding: buffer.totalCost) {
            // The memory cache let go of this player's entry: memory is tight.
            buffer.trim(toCost: 0, current: displayedIndex)
        }
        // Driven by the display, the next refresh shows it.
        let isDue = driver == .clock && index == playback.position(at: clock.now).frame
        buffer.insert(frame, at: index, cost: source.source.cost(of: frame), current: isDue ? index : displayedIndex)
        if isDue { show(frame, at: index) }
        cost?.update(buffer.totalCost, format: playback.animation?.format ?? .other)
    }

    func show(_ frame: Source.Frame, at index: Int) {
        displayedFrame = frame
        displayedIndex = index
        onChange?()
    }
}

/// The player's tasks, cancelled when the player goes away (its deinit cannot reach
/// main-actor state). Used on the main actor only.
final class AnimationPlayerTasks: @unchecked Sendable {
    var load: Task<Void, Never>?
    var loop: Task<Void, Never>?

    deinit {
        load?.cancel()
        loop?.cancel()
    }
}
