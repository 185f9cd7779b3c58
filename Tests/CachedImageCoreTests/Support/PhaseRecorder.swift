import Foundation
import Testing
@testable import CachedImageCore

/// Every phase an `ImageLoader` reports, in order, reduced to what a view would show; tests
/// await phases instead of sleeping.
@MainActor
final class PhaseRecorder {
    /// A phase as a comparable value: successes name the image's path and source.
    enum Seen: Equatable, CustomStringConvertible {
        case empty
        case loading(completed: Int64, total: Int64?)
        case success(path: String, source: ImageResponse.Source)
        case failure(String)

        init(_ phase: ImageLoader.Phase) {
            switch phase {
            case .empty: self = .empty
            case .loading(let progress): self = .loading(completed: progress.completed, total: progress.total)
            case .success(let response): self = .success(path: response.request.url?.path ?? "", source: response.source)
            case .failure(let error): self = .failure(String(describing: error))
            }
        }

        var isLoading: Bool {
            if case .loading = self { return true }
            return false
        }

        var isFailure: Bool {
            if case .failure = self { return true }
            return false
        }

        var successPath: String? {
            if case .success(let path, _) = self { return path }
            return nil
        }

        var description: String {
            switch self {
            case .empty: "empty"
            case .loading(let completed, let total): "loading(\(completed)/\(total.map(String.init) ?? "?"))"
            case .success(let path, let source): "success(\(path), \(source))"
            case .failure(let message): "failure(\(message))"
            }
        }
    }

    private struct Waiter {
        var id: Int
        var from: Int
        var condition: (Seen) -> Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    private(set) var seen: [Seen] = []
    private var waiters: [Waiter] = []
    private var nextWaiterID = 0

    init(_ loader: ImageLoader) {
        loader.onChange = { [weak self] phase in self?.record(phase) }
    }

    /// Returns once a phase matching `condition` has been recorded at index `from` or later, or
    /// when the waiting task is cancelled (the suite's time limit cancels it, so a phase that
    /// never comes fails the test instead of hanging the run).
    func wait(from index: Int = 0, until condition: @escaping (Seen) -> Bool) async {
        if seen.dropFirst(index).contains(where: condition) { return }
        nextWaiterID += 1
        let id = nextWaiterID
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume()
                } else {
                    waiters.append(Waiter(id: id, from: index, condition: condition, continuation: continuation))
                }
            }
        } onCancel: {
            Task { @MainActor [weak self] in self?.stopWaiting(id) }
        }
        if !seen.dropFirst(index).contains(where: condition) {
            Issue.record("cancelled before a matching phase; seen: \(seen)")
        }
    }

    private func stopWaiting(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume()
    }

    private func record(_ phase: ImageLoader.Phase) {
        let value = Seen(phase)
        seen.append(value)
        let index = seen.count - 1
        var remaining: [Waiter] = []
        for waiter in waiters {
            if index >= waiter.from, waiter.condition(value) {
                waiter.continuation.resume()
            } else {
                remaining.append(waiter)
            }
        }
        waiters = remaining
    }
}
