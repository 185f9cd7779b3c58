import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The priority of one running load, as the pipeline wants it: it follows the requests waiting
/// for the bytes while the download runs (a view scrolling off screen lowers it, scrolling back
/// raises it again).
///
/// The pipeline passes one to ``DataLoading/load(_:limits:priority:progress:)``. A loader that
/// can reprioritise its transfer observes it; ``URLSessionDataLoader`` sets
/// `URLSessionTask.priority` from it:
///
/// ```swift
/// priority.observe { task.priority = $0.urlSessionTaskPriority }
/// ```
package final class DataLoadPriority: Sendable {
    private struct State {
        var value: ImageRequest.Priority
        var observers: [@Sendable (ImageRequest.Priority) -> Void] = []
    }

    private let state: Locked<State>

    /// Creates a priority handle starting at `priority`.
    package init(_ priority: ImageRequest.Priority = .normal) {
        state = Locked(State(value: priority))
    }

    /// The priority right now.
    package var value: ImageRequest.Priority {
        state.withLock { $0.value }
    }

    /// Calls `observer` at once with the current priority, then with every change, in order.
    ///
    /// Registering and the first call happen together, so no change in between is missed.
    /// Observers run synchronously, one at a time, on the thread that changes the priority:
    /// keep them short (set a property), and do not change the priority from inside one.
    package func observe(_ observer: @escaping @Sendable (ImageRequest.Priority) -> Void) {
        state.withLock { state in
            state.observers.append(observer)
            observer(state.value)
        }
    }

    /// Changes the priority and tells every observer. Setting the current value again does
    /// nothing. The pipeline calls this; loaders only observe.
    package func update(_ priority: ImageRequest.Priority) {
        state.withLock { state in
            guard state.value != priority else { return }
            state.value = priority
            for observer in state.observers { observer(priority) }
        }
    }
}

extension ImageRequest.Priority {
    /// The `URLSessionTask.priority` for this level: `lowPriority` for `.veryLow` and `.low`,
    /// `defaultPriority` for `.normal`, `highPriority` for `.high` and `.veryHigh`.
    public var urlSessionTaskPriority: Float {
        switch self {
        case .veryLow, .low: URLSessionTask.lowPriority
        case .normal: URLSessionTask.defaultPriority
        case .high, .veryHigh: URLSessionTask.highPriority
        }
    }
}
