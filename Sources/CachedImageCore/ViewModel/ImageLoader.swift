import Foundation

/// The state machine behind an image view: what to show for one request at a time, on the main
/// actor. `CachedAsyncImage` is a thin SwiftUI mapping of it; use it directly to drive a
/// `UIImageView`, a custom view or a cell.
///
/// ```swift
/// let loader = ImageLoader(pipeline: .shared)
/// loader.onChange = { phase in render(phase) }
/// loader.load(ImageRequest(url: url))   // a memory hit is `.success` before this returns
/// ```
///
/// - A memory hit is answered synchronously: ``phase`` is `.success` when ``load(_:)`` returns,
///   with no `.empty` or `.loading` step in between (no placeholder flash).
/// - One request at a time: loading another request (a reused cell, a changed URL) cancels this
///   loader's interest in the previous one, and nothing from the previous request is ever
///   delivered afterwards. Shared work continues while other views still want it.
/// - Progress only moves forward.
/// - Cancellation is not a failure: ``cancel()`` returns the phase to `.empty`.
@MainActor
public final class ImageLoader {
    /// What the loader shows.
    public enum Phase: Sendable {
        /// Nothing requested yet, or the load was cancelled.
        case empty
        /// Loading from disk or network; the progress of the download.
        case loading(Progress)
        /// The image, and where it came from (`.memory` for a synchronous hit).
        case success(ImageResponse)
        /// Loading failed: usually an ``ImagePipeline/Error``.
        case failure(any Error)

        /// The response when the phase is `.success`.
        public var response: ImageResponse? {
            if case .success(let response) = self { return response }
            return nil
        }

        /// The error when the phase is `.failure`.
        public var error: (any Error)? {
            if case .failure(let error) = self { return error }
            return nil
        }

        /// The progress when the phase is `.loading`.
        public var progress: Progress? {
            if case .loading(let progress) = self { return progress }
            return nil
        }
    }

    /// Bytes received so far for the current request's download.
    public struct Progress: Sendable, Hashable {
        /// Body bytes received.
        public var completed: Int64
        /// Body bytes expected, when the server said (`Content-Length`).
        public var total: Int64?

        public init(completed: Int64, total: Int64?) {
            self.completed = completed
            self.total = total
        }

        /// `completed / total` in `0...1`, or `nil` when the total is unknown.
        public var fraction: Double? {
            guard let total, total > 0 else { return nil }
            return min(1, max(0, Double(completed) / Double(total)))
        }
    }

    /// What happens to a load in flight when its view leaves the screen.
    public enum DisappearBehavior: Sendable, Hashable {
        /// Keep loading at this lower priority (visible images go first); restore the request's
        /// own priority when the view comes back. The default, with `.low`.
        case lowerPriority(to: ImageRequest.Priority)
        /// Cancel this view's interest; the load starts again (from the caches if it finished
        /// elsewhere) when the view comes back.
        case cancel
    }

    /// The pipeline that loads images. Changing it affects the next ``load(_:)``.
    public var pipeline: ImagePipeline

    /// When `true`, the last image stays available in ``previousResponse`` while a different
    /// request loads, so a view can keep showing it instead of a placeholder. Default `false`.
    public var keepsPreviousImage: Bool

    /// What ``didDisappear()`` does to a load in flight. Default `.lowerPriority(to: .low)`.
    public var disappearBehavior: DisappearBehavior

    /// Called on the main actor after every change of ``phase`` (and of ``previousResponse``).
    public var onChange: (@MainActor (Phase) -> Void)?

    /// What to show now.
    public private(set) var phase: Phase = .empty

    /// The request the phase is about (the last one passed to ``load(_:)``).
    public private(set) var request: ImageRequest?

    /// While a new request loads and ``keepsPreviousImage`` is on: the last successful response
    /// of an earlier request. `nil` otherwise.
    public private(set) var previousResponse: ImageResponse?

    /// Identifies the current load; results of older loads are dropped.
    private var generation = 0
    /// The pipeline task of the current load (internal: tests read its priority, and
    /// ``ImageViewLoadingController`` hands it over on reuse).
    private(set) var task: ImageTask?
    /// The options the last load added to ``request`` (`.retryingFailure` for a ``retry()``),
    /// so that a load ``didDisappear()`` cancelled restarts as it was.
    private var addedOptions: ImageRequest.Options = []
    private var loadedPipeline: ObjectIdentifier?
    private var isVisible = true
    private var work: [Int: Task<Void, Never>] = [:]

    /// Creates a loader; it can be created anywhere (a SwiftUI `@StateObject`'s initialiser is
    /// not main-actor isolated on older SDKs) and is used on the main actor.
    nonisolated public init(
        pipeline: ImagePipeline = .shared,
        keepsPreviousImage: Bool = false,
        disappearBehavior: DisappearBehavior = .lowerPriority(to: .low)
    ) {
        self.pipeline = pipeline
        self.keepsPreviousImage = keepsPreviousImage
        self.disappearBehavior = disappearBehavior
    }

    deinit {
        task?.cancel()
    }

    // MARK: Loading

    /// Shows the image for `request`: at once when it is in the memory cache, otherwise through
    /// `.loading` to `.success` or `.failure`.
    ///
    /// Loading the request that is already loading or loaded does nothing, so calling this on
    /// every appearance is cheap. Any other request replaces the current one.
    public func load(_ request: ImageRequest) {
        if isCurrent(request) {
            switch phase {
            case .loading, .success: return
            case .empty, .failure: break
            }
        }
        start(request)
    }

    /// Loads the current request again (after a failure, typically), asking the server even if
    /// the image failed moments ago. Does nothing while it loads.
    public func retry() {
        guard let request else { return }
        if case .loading = phase { return }
        start(request, adding: .retryingFailure)
    }

    /// Stops loading: the phase goes back to `.empty` (a success stays). Shared work continues
    /// while other requests want it. ``load(_:)`` or ``retry()`` starts again.
    public func cancel() {
        guard case .loading = phase else { return }
        stopCurrentTask()
        previousResponse = nil
        update(.empty)
    }

    /// Forgets the request and shows `.empty`.
    public func reset() {
        stopCurrentTask()
        request = nil
        previousResponse = nil
        update(.empty)
    }

    /// The phase to render for `request` right now, without waiting.
    ///
    /// For the loader's current request this is ``phase``. For another request it is a
    /// synchronous memory lookup: a hit becomes the loader's state immediately (without calling
    /// ``onChange``: the caller is rendering it already) so the first frame shows the image;
    /// a miss is `.empty` and changes nothing (call ``load(_:)`` to start).
    public func phase(for request: ImageRequest) -> Phase {
        if isCurrent(request) { return phase }
        guard let response = memoryResponse(for: request) else { return .empty }
        stopCurrentTask()
        adopt(request)
        previousResponse = nil
        phase = .success(response)
        return phase
    }

    /// The image to keep on screen while `request` loads, when ``keepsPreviousImage`` is on: the
    /// last success of another request. Pairs with ``phase(for:)`` before ``load(_:)`` runs.
    public func previousResponse(for request: ImageRequest) -> ImageResponse? {
        guard keepsPreviousImage else { return nil }
        if isCurrent(request) { return previousResponse }
        return phase.response ?? previousResponse
    }

    // MARK: Visibility

    /// The view left the screen: lowers the load's priority or cancels it (see ``disappearBehavior``).
    public func didDisappear() {
        isVisible = false
        guard case .loading = phase else { return }
        switch disappearBehavior {
        case .lowerPriority(let priority):
            task?.setPriority(min(priority, request?.priority ?? priority))
        case .cancel:
            cancel()
        }
    }

    /// The view is back on screen: restores the request's priority, or reloads a load that
    /// ``didDisappear()`` cancelled.
    public func didAppear() {
        isVisible = true
        guard let request else { return }
        switch phase {
        case .loading:
            task?.setPriority(request.priority)
        case .empty:
            start(request, adding: addedOptions)
        case .success, .failure:
            break
        }
    }

    // MARK: Internals

    private func isCurrent(_ request: ImageRequest) -> Bool {
        self.request == request && loadedPipeline == ObjectIdentifier(pipeline)
    }

    private func adopt(_ request: ImageRequest) {
        self.request = request
        loadedPipeline = ObjectIdentifier(pipeline)
    }

    private func memoryResponse(for request: ImageRequest) -> ImageResponse? {
        // Memory, else a small disk entry read synchronously (Configuration.synchronousDiskRead).
        pipeline.firstFrameImage(for: request)
    }

    /// Starts loading `request`; `extraOptions` apply to this load only.
    private func start(_ request: ImageRequest, adding extraOptions: ImageRequest.Options = []) {
        let keep = keepsPreviousImage && !isCurrent(request) ? (phase.response ?? previousResponse) : nil
        stopCurrentTask()
        adopt(request)
        addedOptions = extraOptions

        // First frame: a synchronous memory hit, with no intermediate state.
        if let response = memoryResponse(for: request) {
            previousResponse = nil
            update(.success(response))
            return
        }

        previousResponse = keep
        generation += 1
        let generation = self.generation
        var taskRequest = request
        taskRequest.options.formUnion(extraOptions)
        if !isVisible, case .lowerPriority(let priority) = disappearBehavior {
            taskRequest.priority = min(priority, request.priority)
        }
        let task = pipeline.imageTask(with: taskRequest) { [weak self] received, expected in
            Task { @MainActor [weak self] in
                self?.progressed(Progress(completed: received, total: expected), generation: generation)
            }
        }
        self.task = task
        update(.loading(Progress(completed: 0, total: nil)))
        work[generation] = Task { [weak self] in
            let result: Result<ImageResponse, any Error>
            do {
                result = .success(try await task.response)
            } catch {
                result = .failure(error)
            }
            self?.finished(result, generation: generation)
        }
    }

    private func progressed(_ progress: Progress, generation: Int) {
        guard generation == self.generation, case .loading(let current) = phase else { return }
        // Callbacks hop to the main actor independently; never let progress go backwards.
        guard progress.completed > current.completed || (current.total == nil && progress.total != nil) else { return }
        update(.loading(Progress(completed: max(progress.completed, current.completed), total: progress.total ?? current.total)))
    }

    private func finished(_ result: Result<ImageResponse, any Error>, generation: Int) {
        work[generation] = nil
        guard generation == self.generation, case .loading = phase else { return }
        task = nil
        switch result {
        case .success(let response):
            previousResponse = nil
            update(.success(response))
        case .failure(let error) where error is CancellationError:
            // Cancelled from outside (the pipeline shut down the work): nothing to show.
            previousResponse = nil
            update(.empty)
        case .failure(let error):
            previousResponse = nil
            update(.failure(error))
        }
    }

    private func stopCurrentTask() {
        generation += 1
        task?.cancel()
        task = nil
    }

    private func update(_ phase: Phase) {
        self.phase = phase
        onChange?(phase)
    }

    /// Waits until every load this loader started has delivered (or dropped) its result.
    /// For tests (`@_spi(Testing) import CachedImageCore`): after it returns, no late result
    /// can still change the phase.
    @_spi(Testing) public func settle() async {
        while let next = work.first {
            await next.value.value
            work[next.key] = nil
        }
    }
}
