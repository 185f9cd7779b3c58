import Foundation

/// A handle on one image request in flight: await its result, change its priority (a cell
/// scrolled off screen can drop to `.low`), or cancel it.
///
/// ```swift
/// let task = pipeline.imageTask(with: request)
/// task.setPriority(.high)
/// let response = try await task.response
/// ```
///
/// Identical requests share one download and one decode; cancelling a task cancels the shared
/// work only when no other task still wants it.
public final class ImageTask: Sendable, Hashable, CustomStringConvertible {
    /// Unique within the process; events mention it.
    public let id: Int
    /// The request this task serves.
    public let request: ImageRequest

    /// When the task started (the pipeline's clock).
    let startDate: Date
    private let startUptime = DispatchTime.now().uptimeNanoseconds
    private let state: Locked<State>

    private struct State {
        var priority: ImageRequest.Priority
        var subscription: ImageJobs.Subscription?
        var work: Task<ImageResponse, any Error>?
        /// ``cancel()`` was called: ``response`` throws, whatever the work produced.
        var isCancelled = false
        /// ``imageSize``.
        var imageSize: PixelSize?
    }

    /// The image's size in pixels, as it shows, as soon as the first bytes of its body arrive
    /// (long before the last): reserve a view's space with its ``PixelSize/aspectRatio`` so
    /// nothing moves when the image comes. `nil` until then, and for an image served whole from
    /// the caches (its response has the image). Processors may change the final size.
    ///
    /// ```swift
    /// let task = pipeline.imageTask(with: request, progress: { _, _ in
    ///     // A download under way: `task.imageSize` may be known already.
    /// })
    /// if let size = task.imageSize { row.height = row.width / CGFloat(size.aspectRatio) }
    /// ```
    public var imageSize: PixelSize? {
        state.withLock { $0.imageSize }
    }

    /// The job read the image's size from its first bytes; `false` when the task knew it.
    func noteImageSize(_ size: PixelSize) -> Bool {
        state.withLock { state in
            guard state.imageSize != size else { return false }
            state.imageSize = size
            return true
        }
    }

    private static let nextID = Locked(0)

    init(request: ImageRequest, startDate: Date) {
        self.id = ImageTask.nextID.withLock { value -> Int in
            value += 1
            return value
        }
        self.request = request
        self.startDate = startDate
        self.state = Locked(State(priority: request.priority))
    }

    /// Runs `work` in a task of its own; called at most once, right after creating the task.
    func start(_ work: @escaping @Sendable () async throws -> ImageResponse) {
        let task = Task { try await work() }
        state.withLock { $0.work = task }
    }

    /// Seconds since the task started (monotonic).
    var elapsedTime: TimeInterval {
        Double(DispatchTime.now().uptimeNanoseconds - startUptime) / 1e9
    }

    /// The task's current priority.
    public var priority: ImageRequest.Priority {
        state.withLock { $0.priority }
    }

    /// Changes the priority of this task; shared work runs at the highest priority of its tasks.
    public func setPriority(_ priority: ImageRequest.Priority) {
        // Passed on under the task's lock, so that two changes racing on two threads reach the
        // shared job in the order they were made (nothing the job calls comes back to the task).
        state.withLock { state in
            guard state.priority != priority else { return }
            state.priority = priority
            state.subscription?.setPriority(priority)
        }
    }

    /// Cancels this task: ``response`` throws `CancellationError`. Shared work continues while
    /// other tasks still want it.
    public func cancel() {
        state.withLock { state -> Task<ImageResponse, any Error>? in
            state.isCancelled = true
            return state.work
        }?.cancel()
    }

    /// The result: the image and where it came from.
    ///
    /// - Throws: ``ImagePipeline/Error`` on failure, `CancellationError` when cancelled.
    public var response: ImageResponse {
        get async throws {
            guard let work = state.withLock({ $0.work }) else { throw CancellationError() }
            let response = try await work.value
            // A memory hit (or a disk hit) can finish before the cancellation reaches it: the
            // promise is the caller's, so a cancelled task never delivers.
            if state.withLock({ $0.isCancelled }) { throw CancellationError() }
            return response
        }
    }

    /// Connects priority changes to the shared job this task subscribed to at `initial`,
    /// replaying a change made before the subscription existed.
    func bind(to subscription: ImageJobs.Subscription, subscribedAt initial: ImageRequest.Priority) {
        state.withLock { state in
            state.subscription = subscription
            if state.priority != initial { subscription.setPriority(state.priority) }
        }
    }

    public static func == (lhs: ImageTask, rhs: ImageTask) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String { "ImageTask(\(id), \(request))" }
}
