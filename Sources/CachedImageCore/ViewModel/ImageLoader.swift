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
/// - **An image on disk or once shown is never a placeholder**: an image the view showed is kept
///   for display whatever its HTTP freshness, and a complete disk entry is shown whatever its
///   freshness (in the first frame when small, else as soon as it is read, after a relaunch
///   too), marked ``ImageResponse/isStale`` and revalidated behind it (``isRevalidating``): the
///   view changes only if the image did. A revalidation that fails for a passing reason
///   (offline, a dropped connection, a `5xx`) keeps the image, with the error in
///   ``ImageResponse/revalidationError`` (and ``Phase/error``, ``Callbacks/onFailure``), and asks
///   again when the network comes back; the same URL is revalidated once per appearance.
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
///   `onDisappear` of an old branch never hides a view whose new branch appeared. Off screen
///   past its grace period a view lets go of its image once and stays quiet: rendering it
///   again (a hidden tab whose `body` still runs) shows `.empty`, starts nothing and makes no
///   request until it appears again.
/// - Progress only moves forward and is published at most 30 times a second, the latest value
///   always last (``reportsProgress`` turns it off).
/// - Cancellation is not a failure: ``cancel()`` returns the phase to `.empty`.
@MainActor
package final class ImageLoader {
    /// The pipeline that loads images. Changing it affects the next ``load(_:)``.
    package var pipeline: ImagePipeline

    /// When `true`, the last image stays available in ``previousResponse`` while a different
    /// request loads, so a view can keep showing it instead of a placeholder. Default `false`.
    package var keepsPreviousImage: Bool

    /// What happens when the view leaves the screen. Default ``OffscreenBehavior/automatic``:
    /// lower the priority at once, cancel the load and let go of the image after half a second.
    package var offscreenBehavior: OffscreenBehavior

    /// Whether download progress is published as `.loading` phases. Default `true`; turn it off
    /// for a view that cannot show progress, so that a download re-renders nothing until it ends.
    /// Applies to loads started afterwards.
    package var reportsProgress = true

    /// Called on the main actor after every change of ``phase`` (and of ``previousResponse``).
    package var onChange: (@MainActor (Phase) -> Void)?

    /// Start, success, failure and progress callbacks, each fired once per event.
    package var callbacks = Callbacks()

    /// What asks a transient failure again (the app returning to the foreground, the network
    /// coming back). `nil`, the default: ``FailureRecovery/shared``.
    package var failureRecovery: FailureRecovery?

    /// What to show now.
    package internal(set) var phase: Phase = .empty

    /// The request the phase is about (the last one passed to ``load(_:)``).
    package internal(set) var request: ImageRequest?

    /// While a new request loads and ``keepsPreviousImage`` is on: the last successful response
    /// of an earlier request. `nil` otherwise.
    package internal(set) var previousResponse: ImageResponse?

    /// Identifies the current load; results of older loads are dropped.
    var generation = 0
    /// The URL whose image the server confirmed (or sent) since the view last came on screen:
    /// another size of it is shown from the disk without asking again.
    var confirmedURL: URL?
    /// The revalidation behind an image kept for display (see ``ImageLoader/revalidate()``).
    var revalidation: ImageTask?
    /// While ``handingOver(_:)`` runs: the outgoing revalidation, which a revalidation of the
    /// same URL at another size takes over instead of asking the server again.
    var handedOverRevalidation: ImageTask?
    /// The pipeline task of the current load (tests read its priority, and
    /// `ImageViewLoadingController` hands it over on reuse).
    var task: ImageTask?
    /// The options the last load added to ``request`` (`.skipFailureCache` for a ``retry()``),
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
    /// When the view last left the screen (the scheduler's clock), while it is off screen.
    var disappearedAt: Date?
    /// The view left the screen flung past (``OffscreenGrace``): no grace period this time.
    var flung = false
    /// Whether the view showed an image for the current request since it last came on screen.
    var showedImage = false
    /// The current load's progress on its way to the main actor.
    var progressInbox: ProgressInbox?
    /// When progress (or the load's first `.loading`) was last published, on the scheduler's clock.
    var lastProgressDate: Date?
    var isProgressFlushScheduled = false
    /// The last image size a load of this loader learned before its image (``ImageLoadingProgress/pixelSize``), and its URL.
    var lastImageSize: (url: URL, size: PixelSize)?
    /// The latest preview of the current load and its number (``ImageLoader+Preview``): a
    /// progressive scan (1, 2...), or the request's smaller image (0, ``ImageLoader+LowResolution``).
    var previewState: (response: ImageResponse, number: Int)?
    /// The load of the current request's ``ImageRequest/lowResolutionURL``.
    var lowResolutionTask: ImageTask?
    /// The smaller image the current load showed: what the view keeps if the load fails.
    var lowResolution: ImageResponse?
    /// The request ``Callbacks/onSuccess`` was last called for.
    var reportedSuccess: ImageRequest?
    let scheduler: any ViewModelScheduler
    /// The tasks awaiting this loader's pipeline tasks, by a number of their own (``track(_:)``).
    var work: [Int: Task<Void, Never>] = [:]
    var workCount = 0
    /// The last request whose first-frame lookup missed memory and disk (and its pipeline), so
    /// that `body` running again before the load starts reads memory only, not the disk again.
    var firstFrameMiss: (request: ImageRequest, pipeline: ObjectIdentifier)?
    /// The last stand-in lookup (``previousResponse(for:)``), for the request and load it was made for.
    var standInLookup: (request: ImageRequest, generation: Int, response: ImageResponse?)?

    /// Creates a loader; it can be created anywhere (a SwiftUI `@StateObject`'s initialiser is
    /// not main-actor isolated on older SDKs) and is used on the main actor.
    nonisolated package convenience init(
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
        lowResolutionTask?.cancel()
        revalidation?.cancel()
    }

    // MARK: Loading

    /// Shows the image for `request`: at once when it is in the memory cache, otherwise through
    /// `.loading` to `.success` or `.failure`.
    ///
    /// Loading the current request does nothing unless a ``cancel()`` stopped it (or, while the
    /// view is on screen, it was cancelled or let go off screen): a `.failure` is not retried and a
    /// `.success` not reloaded, so calling this on every appearance or branch change is free.
    /// Any other request replaces the current one.
    package func load(_ request: ImageRequest) {
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
    package func retry() {
        guard let request, request.url != nil else { return }
        if case .loading = phase { return }
        if let shown = phase.response, shown.isStale {
            // A stale image stays on screen while it is asked again.
            revalidate(adding: .skipFailureCache)
            return
        }
        reportedSuccess = nil
        start(request, adding: .skipFailureCache)
    }

    /// Stops loading: the phase goes back to `.empty` (a success stays). Shared work continues
    /// while other requests want it. ``load(_:)`` or ``retry()`` starts again.
    package func cancel() {
        guard case .loading = phase else { return }
        stopCurrentTask()
        previousResponse = nil
        pause = .stopped
        update(.empty)
    }

    /// Forgets the request and shows `.empty`.
    package func reset() {
        releaseShownImage()
        stopCurrentTask()
        leaveFailure()
        confirmedURL = nil
        request = nil
        pause = nil
        previousResponse = nil
        update(.empty)
    }

    /// The phase to render for `request` right now, without waiting.
    ///
    /// For the loader's current request this is ``phase`` (on screen, an image let go off screen
    /// comes back here from the memory cache, in the same frame; off screen it stays `.empty`:
    /// ``didAppear()`` brings it back before the first frame is drawn). For another request it
    /// is a synchronous lookup (memory, the image the view showed, a small disk entry): a hit
    /// becomes the loader's state immediately (without calling ``onChange``: the caller is
    /// rendering it already) so the first frame shows the image; a miss is `.empty` and changes
    /// nothing (call ``load(_:)`` to start).
    package func phase(for request: ImageRequest) -> Phase {
        if isCurrent(request) {
            // On screen, `body` takes back an image let go off screen (a return's `onAppear`
            // does too). Off screen it does not: a hidden view whose `body` still runs (a tab,
            // a navigation root) would take the image back, revalidate it and let go of it
            // again, every grace period.
            if case .empty = phase, pause == .released || pause == .suspended, visibility.isOnScreen,
               let response = firstFrame(for: request) {
                handingOver {
                    stopCurrentTask()
                    adoptSilently(response)
                }
                reportSuccessLater()
            }
            return phase
        }
        guard request.url != nil, let response = firstFrame(for: request) else { return .empty }
        // The revalidation of another size of this image is joined before it is let go.
        handingOver {
            releaseShownImage()
            stopCurrentTask()
            adopt(request)
            adoptSilently(response)
        }
        reportSuccessLater()
        armOffscreenCheckIfHidden() // a row rendered off screen does not keep its image
        return phase
    }

    // MARK: Internals

    func isCurrent(_ request: ImageRequest) -> Bool {
        self.request == request && loadedPipeline == ObjectIdentifier(pipeline)
    }

    /// Starts loading `request`; `extraOptions` apply to this load only.
    func start(_ request: ImageRequest, adding extraOptions: ImageRequest.Options = [], keeping kept: ImageResponse? = nil) {
        let keep = kept ?? (keepsPreviousImage && !isCurrent(request) ? (phase.response ?? previousResponse) : nil)
        // The smaller image shown for the same URLs (a resize, a retry) stays on screen.
        let sameImage = self.request?.url == request.url && self.request?.lowResolutionURL == request.lowResolutionURL
        let lowResolution = sameImage ? self.lowResolution : nil
        // Handover: the new task joins the shared work (the download a resize, a scale or a
        // priority change still needs) before the outgoing one lets go of it, so the last
        // subscriber never leaves a download another size is about to join.
        handingOver {
            if !isCurrent(request) { releaseShownImage() }
            stopCurrentTask()
            leaveFailure()
            adopt(request)
            addedOptions = extraOptions
            pause = nil
            begin(request, adding: extraOptions, keeping: keep, lowResolution: lowResolution)
        }
    }

    private func begin(
        _ request: ImageRequest, adding extraOptions: ImageRequest.Options, keeping keep: ImageResponse?, lowResolution: ImageResponse? = nil
    ) {
        guard request.url != nil else {
            // AsyncImage(url: nil): empty, and nothing to load.
            previousResponse = nil
            update(.empty)
            return
        }

        // First frame: a synchronous memory hit (or the image the view showed, or a small disk
        // entry, stale ones revalidated behind it), with no intermediate state.
        if let response = firstFrame(for: request) {
            previousResponse = nil
            addedOptions = []
            pipeline.keepShown(response)
            update(.success(response))
            reportSuccess(response)
            if response.isStale { revalidate(adding: extraOptions) }
            armOffscreenCheckIfHidden()
            return
        }

        previousResponse = keep
        let generation = self.generation
        var taskRequest = request
        taskRequest.options.formUnion(extraOptions)
        if confirmedURL == request.url, !taskRequest.options.contains(.skipFailureCache) {
            // Confirmed by the server since the view came on screen: another size is read from
            // the disk whatever its freshness, not asked again.
            taskRequest.options.insert(.returnCacheDataElseLoad)
        }
        if !visibility.isOnScreen, let priority = offscreenBehavior.offscreenPriority {
            taskRequest.priority = min(priority, request.priority)
        }
        let task = pipeline.imageTask(
            with: taskRequest, progress: progressHandler(generation: generation), preview: previewHandler(generation: generation),
            stale: staleHandler(generation: generation), size: sizeHandler(generation: generation)
        )
        self.task = task
        lastProgressDate = scheduler.clock.now
        // A download in flight for the image (a prefetch, another size) read its size already, or
        // an earlier load of this URL did (a load cancelled off screen, a retry): a new load
        // does not take the view's reserved space away.
        let knownSize = task.imageSize ?? (lastImageSize?.url == request.url ? lastImageSize?.size : nil)
        if let knownSize, let url = request.url { lastImageSize = (url, knownSize) }
        let publishedSize = reportsProgress || callbacks.onProgress != nil ? knownSize : nil
        prepareLowResolution(for: request, generation: generation, carrying: lowResolution) // in this first update when at hand
        update(.loading(Progress(completed: 0, total: nil, pixelSize: publishedSize)))
        callbacks.onStart?(taskRequest)
        track(task) { [weak self] result in self?.finished(result, generation: generation, task: task) }
        armOffscreenCheckIfHidden()
    }

    /// Runs `body` with the current task and revalidation set aside, and cancels them after it:
    /// whatever `body` starts joins the shared work they hold before they let go of it. A
    /// revalidation `body` needs for another size of the same URL takes the outgoing one over
    /// (``revalidate(adding:)``): the server is asked once per URL, whatever the sizes.
    func handingOver(_ body: () -> Void) {
        let outgoing = task
        let outgoingLowResolution = lowResolutionTask
        lowResolutionTask = nil
        defer { outgoingLowResolution?.cancel() }
        task = nil
        handedOverRevalidation = revalidation
        revalidation = nil
        body()
        outgoing?.cancel()
        handedOverRevalidation?.cancel()
        handedOverRevalidation = nil
    }

    private func finished(_ result: Result<ImageResponse, any Error>, generation: Int, task: ImageTask) {
        guard generation == self.generation else { return }
        guard case .loading = phase else {
            // The load showed the stored copy (stale) and became its revalidation.
            revalidated(result, generation: generation, task: task)
            return
        }
        self.task = nil
        progressInbox = nil
        previousResponse = nil
        previewState = nil // the final image (or the failure) replaces the preview in this update
        switch result {
        case .success(let response):
            stopLowResolution()
            lowResolution = nil
            addedOptions = []
            if response.source == .network || response.source == .revalidated { confirmedURL = response.request.url }
            pipeline.keepShown(response)
            update(.success(response))
            reportSuccess(response)
            if let error = response.revalidationError {
                // Served stale because the server could not be asked (offline): ask again later.
                waitForRecovery(after: error)
                callbacks.onFailure?(error)
            }
        case .failure(let error) where error is CancellationError:
            // Cancelled from outside (the pipeline shut down the work): nothing to show.
            stopLowResolution()
            lowResolution = nil
            pause = .stopped
            update(.empty)
        case .failure(let error):
            update(.failure(error))
            waitForRecovery(after: error)
            callbacks.onFailure?(error)
        }
    }

    /// The view lets go of the image it shows (off screen past its grace period, reused, another
    /// request): it stays available for display (``ImagePipeline/keepShown(_:released:)``).
    func releaseShownImage() {
        if let response = phase.response { pipeline.keepShown(response, released: true) }
    }

    /// Ends this loader's interest in the current load; its results will be dropped.
    func stopCurrentTask() {
        generation += 1
        task?.cancel()
        task = nil
        stopLowResolution()
        lowResolution = nil
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
            if let request { pipeline.noteShown(request) }
        }
        self.phase = phase
        onChange?(phase)
    }
}
