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
/// - **Idempotent**: ``load(_:)`` with the current request never restarts it, whatever its
///   phase: a `.success` stays, and so does a `.failure`. Only these load the current request
///   again: ``retry()``, a ``cancel()`` followed by ``load(_:)``, a new appearance after the view
///   left the screen long enough for its load to be cancelled or its image let go (see
///   ``OffscreenBehavior``), and a transient failure made stale (``FailureRecovery``: back
///   after the grace period, the app in the foreground, the network back).
/// - **An image once shown is shown again at once**: an image the view showed is kept for
///   display whatever its HTTP freshness and comes back in the first frame, revalidated behind
///   it (``isRevalidating``); the view changes only if the image did.
/// - **Handover never restarts shared work**: a new request (a resize, a scale, a priority)
///   joins the shared download before the outgoing one lets go of it.
///   So a view may call ``load(_:)``, ``didAppear()`` and ``didDisappear()`` as often and in any
///   order its framework does (SwiftUI re-runs `.task` and `onAppear` when a branch changes).
/// - A request without a URL (`ImageRequest(url: nil)`) is `.empty` and starts nothing, as
///   `AsyncImage(url: nil)` is.
/// - One request at a time: loading another request (a reused cell, a changed URL) cancels this
///   loader's interest in the previous one, and nothing from the previous request is ever
///   delivered afterwards. Shared work continues while other views still want it.
/// - Visibility is counted (``didAppear()`` and ``didDisappear()`` pairs), so a late
///   `onDisappear` of an old branch never hides a view whose new branch appeared.
/// - Progress only moves forward and is published at most 30 times a second, the latest value
///   always last (``reportsProgress`` turns it off).
/// - Cancellation is not a failure: ``cancel()`` returns the phase to `.empty`.
@MainActor
public final class ImageLoader {
    /// The pipeline that loads images. Changing it affects the next ``load(_:)``.
    public var pipeline: ImagePipeline

    /// When `true`, the last image stays available in ``previousResponse`` while a different
    /// request loads, so a view can keep showing it instead of a placeholder. Default `false`.
    public var keepsPreviousImage: Bool

    /// What happens when the view leaves the screen. Default ``OffscreenBehavior/automatic``:
    /// lower the priority at once, cancel the load and let go of the image after half a second.
    public var offscreenBehavior: OffscreenBehavior

    /// Whether download progress is published as `.loading` phases. Default `true`; turn it off
    /// for a view that cannot show progress, so that a download re-renders nothing until it ends.
    /// Applies to loads started afterwards.
    public var reportsProgress = true

    /// Called on the main actor after every change of ``phase`` (and of ``previousResponse``).
    public var onChange: (@MainActor (Phase) -> Void)?

    /// Start, success, failure and progress callbacks, each fired once per event.
    public var callbacks = Callbacks()

    /// What asks a transient failure again (the app returning to the foreground, the network
    /// coming back). `nil`, the default: ``FailureRecovery/shared``.
    public var failureRecovery: FailureRecovery?

    /// What to show now.
    public internal(set) var phase: Phase = .empty

    /// The request the phase is about (the last one passed to ``load(_:)``).
    public internal(set) var request: ImageRequest?

    /// While a new request loads and ``keepsPreviousImage`` is on: the last successful response
    /// of an earlier request. `nil` otherwise.
    public internal(set) var previousResponse: ImageResponse?

    /// Identifies the current load; results of older loads are dropped.
    var generation = 0
    /// The revalidation behind an image kept for display (see ``ImageLoader/revalidate()``).
    var revalidation: ImageTask?
    /// The pipeline task of the current load (tests read its priority, and
    /// `ImageViewLoadingController` hands it over on reuse).
    var task: ImageTask?
    /// The options the last load added to ``request`` (`.retryingFailure` for a ``retry()``),
    /// so that a load cancelled off screen restarts as it was.
    var addedOptions: ImageRequest.Options = []
    /// Why the phase is `.empty` although ``request`` is set; `nil` otherwise.
    var pause: Pause?
    var loadedPipeline: ObjectIdentifier?
    /// Appearances minus disappearances.
    var visibility = ViewVisibility()
    /// The current transient failure is waiting in a ``FailureRecovery`` for a reason to ask again.
    var isWaitingForRecovery = false
    /// The current failure is transient and something happened since that makes it worth asking
    /// again (see ``FailureRecovery``): the view's next appearance does.
    var failureIsStale = false
    /// Voids every off-screen check armed before it changed.
    var offscreenCheckToken = 0
    /// When the view last came on screen (the scheduler's clock), while it is on screen.
    var appearedAt: Date?
    /// The view left the screen flung past (``OffscreenGrace``): no grace period this time.
    var flung = false
    /// Whether the view showed an image for the current request since it last came on screen.
    var showedImage = false
    /// The current load's progress on its way to the main actor.
    var progressInbox: ProgressInbox?
    /// When progress (or the load's first `.loading`) was last published, on the scheduler's clock.
    var lastProgressDate: Date?
    var isProgressFlushScheduled = false
    /// The latest progressive preview of the current load and its number (``ImageLoader+Preview``).
    var previewState: (response: ImageResponse, number: Int)?
    /// The request ``Callbacks/onSuccess`` was last called for.
    var reportedSuccess: ImageRequest?
    let scheduler: any ViewModelScheduler
    var work: [Int: Task<Void, Never>] = [:]
    /// The last request whose first-frame lookup missed memory and disk (and its pipeline), so
    /// that `body` running again before the load starts reads memory only, not the disk again.
    private var firstFrameMiss: (request: ImageRequest, pipeline: ObjectIdentifier)?

    /// Creates a loader; it can be created anywhere (a SwiftUI `@StateObject`'s initialiser is
    /// not main-actor isolated on older SDKs) and is used on the main actor.
    nonisolated public convenience init(
        pipeline: ImagePipeline = .shared,
        keepsPreviousImage: Bool = false,
        offscreenBehavior: OffscreenBehavior = .automatic
    ) {
        self.init(pipeline: pipeline, keepsPreviousImage: keepsPreviousImage, offscreenBehavior: offscreenBehavior, scheduler: SystemViewModelScheduler())
    }

    /// Creates a loader whose grace periods and progress throttling run on `scheduler` (tests
    /// and the demo pass one over their own clock).
    nonisolated package init(
        pipeline: ImagePipeline,
        keepsPreviousImage: Bool = false,
        offscreenBehavior: OffscreenBehavior = .automatic,
        scheduler: any ViewModelScheduler
    ) {
        self.pipeline = pipeline
        self.keepsPreviousImage = keepsPreviousImage
        self.offscreenBehavior = offscreenBehavior
        self.scheduler = scheduler
    }

    deinit {
        task?.cancel()
    }

    // MARK: Loading

    /// Shows the image for `request`: at once when it is in the memory cache, otherwise through
    /// `.loading` to `.success` or `.failure`.
    ///
    /// Loading the current request does nothing unless a ``cancel()`` stopped it (or, while the
    /// view is on screen, it was cancelled or let go off screen): a `.failure` is not retried and a
    /// `.success` not reloaded, so calling this on every appearance or branch change is free.
    /// Any other request replaces the current one.
    public func load(_ request: ImageRequest) {
        guard isCurrent(request), case .empty = phase else {
            if !isCurrent(request) { start(request) }
            return
        }
        switch pause {
        case nil:
            return // nothing to load (no URL)
        case .stopped:
            start(request)
        case .suspended, .released:
            if visibility.isOnScreen { start(request, adding: addedOptions) }
        }
    }

    /// Loads the current request again (after a failure, typically), asking the server even if
    /// the image failed moments ago. Does nothing while it loads, or for a request with no URL.
    public func retry() {
        guard let request, request.url != nil else { return }
        if case .loading = phase { return }
        reportedSuccess = nil
        start(request, adding: .retryingFailure)
    }

    /// Stops loading: the phase goes back to `.empty` (a success stays). Shared work continues
    /// while other requests want it. ``load(_:)`` or ``retry()`` starts again.
    public func cancel() {
        guard case .loading = phase else { return }
        stopCurrentTask()
        previousResponse = nil
        pause = .stopped
        update(.empty)
    }

    /// Forgets the request and shows `.empty`.
    public func reset() {
        releaseShownImage()
        stopCurrentTask()
        leaveFailure()
        request = nil
        pause = nil
        previousResponse = nil
        update(.empty)
    }

    /// The phase to render for `request` right now, without waiting.
    ///
    /// For the loader's current request this is ``phase`` (on screen, an image let go off screen
    /// comes back here from the memory cache, in the same frame). For another request it is a
    /// synchronous memory lookup: a hit becomes the loader's state immediately (without calling
    /// ``onChange``: the caller is rendering it already) so the first frame shows the image;
    /// a miss is `.empty` and changes nothing (call ``load(_:)`` to start).
    public func phase(for request: ImageRequest) -> Phase {
        if isCurrent(request) {
            // The first `body` after a return (before `onAppear`) already takes back an image let
            // go off screen: from memory, or the image the view showed, revalidated behind it.
            if case .empty = phase, pause == .released || pause == .suspended, let frame = firstFrame(for: request) {
                stopCurrentTask()
                adoptSilently(frame)
                reportSuccessLater()
                armOffscreenCheckIfHidden()
            }
            return phase
        }
        guard request.url != nil, let frame = firstFrame(for: request) else { return .empty }
        releaseShownImage()
        stopCurrentTask()
        adopt(request)
        adoptSilently(frame)
        reportSuccessLater()
        armOffscreenCheckIfHidden() // a row rendered off screen does not keep its image
        return phase
    }

    /// The image to keep on screen while `request` loads, when ``keepsPreviousImage`` is on: the
    /// last success of another request. Pairs with ``phase(for:)`` before ``load(_:)`` runs.
    public func previousResponse(for request: ImageRequest) -> ImageResponse? {
        guard keepsPreviousImage else { return nil }
        if isCurrent(request) { return previousResponse }
        return phase.response ?? previousResponse
    }

    // MARK: Internals

    func isCurrent(_ request: ImageRequest) -> Bool {
        self.request == request && loadedPipeline == ObjectIdentifier(pipeline)
    }

    private func adopt(_ request: ImageRequest) {
        if self.request != request {
            reportedSuccess = nil
            showedImage = false
        }
        self.request = request
        loadedPipeline = ObjectIdentifier(pipeline)
    }

    /// A first frame for the current request becomes the state without a change being
    /// published; an image kept for display is revalidated behind it.
    private func adoptSilently(_ frame: FirstFrame) {
        pause = nil
        addedOptions = []
        previousResponse = nil
        phase = .success(frame.response)
        showedImage = true
        if frame.isKeptForDisplay { revalidate() }
    }

    /// An image for the first frame, and whether it is one kept for display (stale, maybe).
    struct FirstFrame {
        var response: ImageResponse
        var isKeptForDisplay = false
    }

    private func firstFrame(for request: ImageRequest) -> FirstFrame? {
        if let response = memoryResponse(for: request) { return FirstFrame(response: response) }
        // HTML's list of available images: what a view showed since launch, whatever its
        // freshness, shown at once and revalidated behind it.
        guard let image = pipeline.shownImage(for: request) else { return nil }
        return FirstFrame(response: Self.memoryResponse(image, for: request, pipeline: pipeline), isKeptForDisplay: true)
    }

    private func memoryResponse(for request: ImageRequest) -> ImageResponse? {
        // Memory, else a small disk entry read synchronously (Configuration.synchronousDiskRead),
        // once per request: after a miss, memory only until that request has shown an image.
        let pipelineID = ObjectIdentifier(pipeline)
        if let miss = firstFrameMiss, miss.request == request, miss.pipeline == pipelineID {
            guard let image = pipeline.cachedImage(for: request) else { return nil }
            return Self.memoryResponse(image, for: request, pipeline: pipeline)
        }
        let response = pipeline.firstFrameImage(for: request)
        firstFrameMiss = response == nil ? (request, pipelineID) : nil
        return response
    }

    private static func memoryResponse(_ image: DecodedImage, for request: ImageRequest, pipeline: ImagePipeline) -> ImageResponse {
        ImageResponse(
            image: image, request: request, source: .memory,
            metrics: TaskMetrics(startDate: pipeline.configuration.clock.now, duration: 0, isCoalesced: false, bytesDownloaded: 0)
        )
    }

    /// Starts loading `request`; `extraOptions` apply to this load only.
    func start(_ request: ImageRequest, adding extraOptions: ImageRequest.Options = []) {
        let keep = keepsPreviousImage && !isCurrent(request) ? (phase.response ?? previousResponse) : nil
        // Handover: the new task joins the shared work (the download a resize, a scale or a
        // priority change still needs) before the outgoing one lets go of it, so the last
        // subscriber never leaves a download another size is about to join.
        let outgoing = task ?? revalidation
        task = nil
        revalidation = nil
        defer { outgoing?.cancel() }
        if !isCurrent(request) { releaseShownImage() }
        stopCurrentTask()
        leaveFailure()
        adopt(request)
        addedOptions = extraOptions
        pause = nil

        guard request.url != nil else {
            // AsyncImage(url: nil): empty, and nothing to load.
            previousResponse = nil
            update(.empty)
            return
        }

        // First frame: a synchronous memory hit (or the image the view showed, revalidated
        // behind it), with no intermediate state.
        if let frame = firstFrame(for: request) {
            previousResponse = nil
            addedOptions = []
            update(.success(frame.response))
            reportSuccess(frame.response)
            if frame.isKeptForDisplay { revalidate() }
            armOffscreenCheckIfHidden()
            return
        }

        previousResponse = keep
        let generation = self.generation
        var taskRequest = request
        taskRequest.options.formUnion(extraOptions)
        if !visibility.isOnScreen, let priority = offscreenBehavior.offscreenPriority {
            taskRequest.priority = min(priority, request.priority)
        }
        let task = pipeline.imageTask(
            with: taskRequest, progress: progressHandler(generation: generation), preview: previewHandler(generation: generation)
        )
        self.task = task
        lastProgressDate = scheduler.clock.now
        update(.loading(Progress(completed: 0, total: nil)))
        callbacks.onStart?(taskRequest)
        work[generation] = Task { [weak self] in
            let result: Result<ImageResponse, any Error>
            do {
                result = .success(try await task.response)
            } catch {
                result = .failure(error)
            }
            self?.finished(result, generation: generation)
        }
        armOffscreenCheckIfHidden()
    }

    private func finished(_ result: Result<ImageResponse, any Error>, generation: Int) {
        work[generation] = nil
        guard generation == self.generation, case .loading = phase else { return }
        task = nil
        progressInbox = nil
        previousResponse = nil
        previewState = nil // the final image (or the failure) replaces the preview in this update
        switch result {
        case .success(let response):
            addedOptions = []
            pipeline.keepShown(response)
            update(.success(response))
            reportSuccess(response)
        case .failure(let error) where error is CancellationError:
            // Cancelled from outside (the pipeline shut down the work): nothing to show.
            pause = .stopped
            update(.empty)
        case .failure(let error):
            update(.failure(error))
            if FailureRecovery.isTransient(error) {
                isWaitingForRecovery = true
                (failureRecovery ?? .shared).register(self)
            }
            callbacks.onFailure?(error)
        }
    }

    /// A reason to ask a transient failure again arrived (``FailureRecovery``): ask now if the
    /// view is on screen, else on its next appearance.
    func failureBecameStale() {
        isWaitingForRecovery = false
        guard case .failure(let error) = phase, FailureRecovery.isTransient(error), let request else { return }
        if visibility.isOnScreen {
            start(request)
        } else {
            failureIsStale = true
        }
    }

    /// The view lets go of the image it shows (off screen past its grace period, reused, another
    /// request): it stays available for display (``ImagePipeline/keepShown(_:released:)``).
    func releaseShownImage() {
        if let response = phase.response { pipeline.keepShown(response, released: true) }
    }

    /// The phase leaves a failure (another load starts, or the loader is reset).
    private func leaveFailure() {
        failureIsStale = false
        if isWaitingForRecovery {
            isWaitingForRecovery = false
            (failureRecovery ?? .shared).unregister(self)
        }
    }

    /// Ends this loader's interest in the current load; its results will be dropped.
    func stopCurrentTask() {
        generation += 1
        task?.cancel()
        task = nil
        revalidation?.cancel()
        revalidation = nil
        progressInbox = nil
        previewState = nil
        isProgressFlushScheduled = false
    }

    func update(_ phase: Phase) {
        if case .success = phase {
            firstFrameMiss = nil
            showedImage = true
        }
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
