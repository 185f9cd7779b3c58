import Foundation
@testable import CachedImageCore

/// An ``UptimeClock`` tests move by hand (an animation's time, the link's): `sleep(until:)`
/// suspends until ``advance(by:)`` reaches its deadline (or its task is cancelled). Nothing
/// waits on real time.
final class ManualUptimeClock: UptimeClock, Sendable {
    private struct Sleeper {
        var id: Int
        var deadline: TimeInterval
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: TimeInterval = 1_000
        var nextID = 0
        var sleepers: [Sleeper] = []
        var cancelled: Set<Int> = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// Takes the waiters whose sleeper count has been reached.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
            let count = sleepers.count
            let satisfied = waiters.filter { $0.count == count }.map(\.continuation)
            waiters.removeAll { $0.count == count }
            return satisfied
        }
    }

    private let state: Locked<State>

    init(now: TimeInterval = 1_000) {
        var state = State()
        state.now = now
        self.state = Locked(state)
    }

    var now: TimeInterval { state.withLock { $0.now } }

    /// Tasks sleeping on this clock.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    func sleep(until deadline: TimeInterval) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resume, satisfied) = state.withLock { state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if state.cancelled.contains(id) { return (.failure(CancellationError()), []) }
                    if deadline <= state.now { return (.success(()), []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (nil, state.satisfiedWaiters())
                }
                if let resume { continuation.resume(with: resume) }
                for waiter in satisfied { waiter.resume() }
            }
        } onCancel: {
            let (sleeper, satisfied) = state.withLock { state -> (Sleeper?, [CheckedContinuation<Void, Never>]) in
                state.cancelled.insert(id)
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return (nil, []) }
                let sleeper = state.sleepers.remove(at: index)
                return (sleeper, state.satisfiedWaiters())
            }
            sleeper?.continuation.resume(throwing: CancellationError())
            for waiter in satisfied { waiter.resume() }
        }
    }

    /// Returns once exactly `count` tasks sleep on this clock (at once if they already do):
    /// an event, not a time budget.
    func waitForSleepers(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.sleepers.count == count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Moves time on and wakes every sleeper whose deadline has come.
    func advance(by seconds: TimeInterval) {
        let (due, satisfied) = state.withLock { state -> ([Sleeper], [CheckedContinuation<Void, Never>]) in
            state.now += seconds
            let due = state.sleepers.filter { $0.deadline <= state.now }
            state.sleepers.removeAll { $0.deadline <= state.now }
            return (due, state.satisfiedWaiters())
        }
        for sleeper in due { sleeper.continuation.resume() }
        for waiter in satisfied { waiter.resume() }
    }
}
