import Foundation

/// Loads images before they are needed, at low priority, so they show instantly later.
///
/// Prefetches join identical live requests instead of downloading twice, yield the download
/// queue to visible images (which run at higher priority), and can be stopped when the user
/// scrolls away.
///
/// ```swift
/// let prefetcher = ImagePrefetcher()
///
/// // A feed: show the first three images as soon as possible, warm the disk with the rest.
/// let first = await prefetcher.prefetch(requests, waitingForFirst: 3)
///
/// // A list: follow what is about to scroll into view.
/// prefetcher.startPrefetching(with: upcoming)
/// prefetcher.stopPrefetching(with: passed)
/// ```
public final class ImagePrefetcher: Sendable {
    /// Where prefetched images end up.
    public enum Destination: Sendable, Hashable {
        /// Original bytes in the disk cache only: no decoding, no memory. The default.
        case diskCache
        /// Decoded in the memory cache (and the disk cache): ready for the first frame.
        case memoryCache
    }

    /// The pipeline that loads and caches.
    public let pipeline: ImagePipeline
    /// Where prefetched images end up.
    public let destination: Destination
    /// The priority prefetches run at. Default: `.low`, below anything visible.
    public let priority: ImageRequest.Priority

    private let tasks = Locked<[PrefetchKey: (token: Int, task: Task<Void, Never>)]>([:])
    private let nextToken = Locked(0)
    /// Hand-offs to the background session and cancels of them under way, which run one after
    /// the other in call order (``waitUntilFinished()`` waits for them).
    private let handoffs = Locked(Handoffs())

    private struct Handoffs {
        var running: [Int: Task<Void, Never>] = [:]
        /// The last one started: the next one runs after it.
        var last: Task<Void, Never>?
    }
    /// The cache keys this prefetcher handed to the background session: the only downloads its
    /// ``stopPrefetching(with:)`` cancels.
    private let handedOver = Locked<Set<String>>([])

    /// A prefetcher loading through `pipeline` into `destination`, at `priority`.
    public init(pipeline: ImagePipeline = .shared, destination: Destination = .diskCache, priority: ImageRequest.Priority = .low) {
        self.pipeline = pipeline
        self.destination = destination
        self.priority = priority
    }

    deinit {
        stopPrefetching()
    }

    /// Starts prefetching `requests` in the background. Requests already being prefetched are
    /// not started twice.
    public func startPrefetching(with requests: [ImageRequest]) {
        for request in requests {
            let key = PrefetchKey(request)
            let token = nextToken.withLock { value -> Int in
                value += 1
                return value
            }
            // The task is created under the lock, so its own removal always happens after this insert.
            tasks.withLock { tasks in
                guard tasks[key] == nil else { return }
                tasks[key] = (token, makeTask(for: request, key: key, token: token))
            }
        }
    }

    /// Starts prefetching `requests` into the disk cache on the pipeline's background session
    /// when `inBackground` is `true`: the system downloads them even if the app is suspended or
    /// the system ends it (not after the user force-quits it, which cancels them), and the pipeline adopts each finished download, validated like any other (status,
    /// length, completeness, pixel limit) and stored with its HTTP freshness, so it shows from
    /// disk at the next launch. Requests the disk cache holds fresh, and those already
    /// downloading, are not sent again. Into the disk cache whatever ``destination`` says.
    ///
    /// Opt-in: it needs a pipeline configured with a `backgroundSessionIdentifier` (iOS, tvOS,
    /// visionOS) and a disk cache; otherwise, and with `inBackground` `false`, it is
    /// ``startPrefetching(with:)``.
    ///
    /// ```swift
    /// // Tomorrow's feed, downloaded while the app is away.
    /// prefetcher.startPrefetching(with: tomorrow, inBackground: true)
    /// ```
    ///
    /// Background downloads outlive the prefetcher: ``stopPrefetching(with:)`` cancels those this
    /// prefetcher handed over (not another prefetcher's of the same images);
    /// ``stopPrefetching()`` and the prefetcher's end leave them running. This call and
    /// ``stopPrefetching(with:)`` take effect in the order they are made: an image stopped and
    /// started again downloads.
    public func startPrefetching(with requests: [ImageRequest], inBackground: Bool) {
        guard inBackground, let background = pipeline.backgroundDownloads else {
            startPrefetching(with: requests)
            return
        }
        track { [handedOver] in
            let keys = await background.prefetch(requests)
            handedOver.withLock { $0.formUnion(keys) }
        }
    }

    /// Stops prefetching `requests`, and cancels the background downloads of them that this
    /// prefetcher started (``startPrefetching(with:inBackground:)``). Live requests for the same
    /// images, and background downloads another prefetcher started, are not affected.
    public func stopPrefetching(with requests: [ImageRequest]) {
        let cancelled = tasks.withLock { tasks in
            requests.compactMap { tasks.removeValue(forKey: PrefetchKey($0))?.task }
        }
        for task in cancelled { task.cancel() }
        guard let background = pipeline.backgroundDownloads else { return }
        // A prefetcher that never handed anything over asks the session nothing.
        guard !handoffs.withLock({ $0.running.isEmpty }) || !handedOver.withLock({ $0.isEmpty }) else { return }
        // After the hand-offs under way (a request just handed over is cancelled too), and
        // before any started after this call (a request started again is sent again).
        track { [handedOver] in
            let requested = background.cacheKeys(of: requests)
            let mine = handedOver.withLock { keys -> Set<String> in
                let mine = keys.intersection(requested)
                keys.subtract(mine)
                return mine
            }
            if !mine.isEmpty { await background.cancel(keys: mine) }
        }
    }

    /// Stops every prefetch.
    public func stopPrefetching() {
        let cancelled = tasks.withLock { tasks -> [Task<Void, Never>] in
            defer { tasks.removeAll() }
            return tasks.values.map(\.task)
        }
        for task in cancelled { task.cancel() }
    }

    /// How many prefetches are still running.
    public var pendingCount: Int {
        tasks.withLock { $0.count }
    }

    /// Loads the first `count` requests at their own priority into the memory cache, returns
    /// once they are ready (or failed), and then prefetches the rest in the background.
    /// "Show the first image now, load the rest behind it": the first images get the whole
    /// network to themselves.
    ///
    /// - Returns: The results of the first `count` requests, in order.
    @discardableResult
    public func prefetch(
        _ requests: [ImageRequest],
        waitingForFirst count: Int
    ) async -> [Result<ImageResponse, any Error>] {
        let first = requests.prefix(max(0, count))
        let tasks = first.map { pipeline.imageTask(with: $0) }
        var results: [Result<ImageResponse, any Error>] = []
        await withTaskCancellationHandler {
            for task in tasks {
                do {
                    results.append(.success(try await task.response))
                } catch {
                    results.append(.failure(error))
                }
            }
        } onCancel: {
            for task in tasks { task.cancel() }
        }
        // The rest start once the first are ready, so they never compete with them for bandwidth.
        if !Task.isCancelled {
            startPrefetching(with: Array(requests.dropFirst(first.count)))
        }
        return results
    }

    /// Waits until every prefetch started so far has finished (for tests and command-line tools).
    /// Background prefetches count as finished once the session has them.
    public func waitUntilFinished() async {
        while let task = tasks.withLock({ $0.values.first?.task }) {
            await task.value
        }
        while let handoff = handoffs.withLock({ $0.running.values.first }) {
            await handoff.value
        }
    }

    /// Runs `work` in a task kept in ``handoffs`` until it ends, after the one tracked before.
    private func track(_ work: @escaping @Sendable () async -> Void) {
        let token = nextToken.withLock { value -> Int in
            value += 1
            return value
        }
        // Created under the lock, so its own removal always happens after this insert.
        handoffs.withLock { handoffs in
            let previous = handoffs.last
            let task = Task { [handoffs = self.handoffs] in
                await previous?.value
                await work()
                handoffs.withLock { $0.running[token] = nil }
            }
            handoffs.running[token] = task
            handoffs.last = task
        }
    }

    /// Joins (or starts) the pipeline's shared work synchronously, so a live request arriving
    /// right after `stopPrefetching` still finds the download in flight, then waits in a task.
    private func makeTask(for request: ImageRequest, key: PrefetchKey, token: Int) -> Task<Void, Never> {
        var prefetchRequest = request
        prefetchRequest.priority = priority
        let wait: @Sendable () async -> Void
        switch destination {
        case .diskCache:
            let subscription = try? pipeline.dataSubscription(for: prefetchRequest)
            wait = { _ = try? await subscription?.value() }
        case .memoryCache:
            let imageTask = pipeline.imageTask(with: prefetchRequest)
            wait = {
                _ = try? await withTaskCancellationHandler {
                    try await imageTask.response
                } onCancel: {
                    imageTask.cancel()
                }
            }
        }
        return Task { [tasks] in
            await wait()
            tasks.withLock { tasks in
                if tasks[key]?.token == token { tasks[key] = nil }
            }
        }
    }
}

/// Prefetches are deduplicated by what they would put in the cache.
private struct PrefetchKey: Hashable, Sendable {
    var cacheKey: String
    var targetSize: PixelSize?

    init(_ request: ImageRequest) {
        cacheKey = request.cacheKey
        targetSize = request.targetPixelSize
    }
}
