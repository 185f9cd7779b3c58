import Foundation
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

    private(set) var seen: [Seen] = []
    private var waiters: [(from: Int, condition: (Seen) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

    init(_ loader: ImageLoader) {
        loader.onChange = { [weak self] phase in self?.record(phase) }
    }

    /// Returns once a phase matching `condition` has been recorded at index `from` or later.
    /// (The suite's time limit turns a phase that never comes into a failure, not a hang.)
    func wait(from index: Int = 0, until condition: @escaping (Seen) -> Bool) async {
        if seen.dropFirst(index).contains(where: condition) { return }
        await withCheckedContinuation { continuation in
            waiters.append((index, condition, continuation))
        }
    }

    private func record(_ phase: ImageLoader.Phase) {
        let value = Seen(phase)
        seen.append(value)
        let index = seen.count - 1
        var remaining: [(from: Int, condition: (Seen) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
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
