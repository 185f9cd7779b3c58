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

    private let state: Locked<State>

    private struct State {
        var priority: ImageRequest.Priority
        var setSubscriptionPriority: (@Sendable (ImageRequest.Priority) -> Void)?
        var work: Task<ImageResponse, any Error>?
    }

    private static let nextID = Locked(0)

    init(request: ImageRequest) {
        self.id = ImageTask.nextID.withLock { value -> Int in
            value += 1
            return value
        }
        self.request = request
        self.state = Locked(State(priority: request.priority))
    }

    /// Starts `work`; called once by the pipeline right after creating the task.
    func start(_ work: @escaping @Sendable (ImageTask) async throws -> ImageResponse) {
        let task = Task { try await work(self) }
        state.withLock { $0.work = task }
    }

    /// The task's current priority.
    public var priority: ImageRequest.Priority {
        state.withLock { $0.priority }
    }

    /// Changes the priority of this task; shared work runs at the highest priority of its tasks.
    public func setPriority(_ priority: ImageRequest.Priority) {
        let update = state.withLock { state -> (@Sendable (ImageRequest.Priority) -> Void)? in
            guard state.priority != priority else { return nil }
            state.priority = priority
            return state.setSubscriptionPriority
        }
        update?(priority)
    }

    /// Cancels this task: ``response`` throws `CancellationError`. Shared work continues while
    /// other tasks still want it.
    public func cancel() {
        state.withLock { $0.work }?.cancel()
    }

    /// The result: the image and where it came from.
    ///
    /// - Throws: ``ImagePipeline/Error`` on failure, `CancellationError` when cancelled.
    public var response: ImageResponse {
        get async throws {
            guard let work = state.withLock({ $0.work }) else { throw CancellationError() }
            return try await work.value
        }
    }

    /// Connects priority changes to the shared job this task subscribed to, replaying a change
    /// made before the subscription existed.
    func bindPriority(to setPriority: @escaping @Sendable (ImageRequest.Priority) -> Void, subscribedAt initial: ImageRequest.Priority) {
        let current = state.withLock { state -> ImageRequest.Priority in
            state.setSubscriptionPriority = setPriority
            return state.priority
        }
        if current != initial { setPriority(current) }
    }

    public static func == (lhs: ImageTask, rhs: ImageTask) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String { "ImageTask(\(id), \(request))" }
}
