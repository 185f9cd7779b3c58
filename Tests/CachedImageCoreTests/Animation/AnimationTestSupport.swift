import Foundation
@testable import CachedImageCore

/// An ``AnimationClock`` tests move by hand: `sleep(until:)` suspends until ``advance(by:)``
/// reaches its deadline (or its task is cancelled). Nothing waits on real time.
final class ManualAnimationClock: AnimationClock, Sendable {
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

    private let state = Locked(State())

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

/// A frame source whose frames are their indices: records every decode and how many ran at once.
final class FakeFrameSource: AnimationFrameSource, Sendable {
    private struct State {
        var decoded: [Int] = []
        var running = 0
        var maxRunning = 0
    }

    let info: AnimatedImageInfo
    let frameCost: Int
    private let state = Locked(State())
    /// When set, each decode waits for it to open (tests hold a decode in flight).
    private let hold: BlockingGate?

    init(info: AnimatedImageInfo, frameCost: Int, hold: BlockingGate? = nil) {
        self.info = info
        self.frameCost = frameCost
        self.hold = hold
    }

    var decodedFrames: [Int] { state.withLock { $0.decoded } }
    var decodeCount: Int { state.withLock { $0.decoded.count } }
    var maxConcurrentDecodes: Int { state.withLock { $0.maxRunning } }

    func frame(at index: Int) -> Int? {
        state.withLock {
            $0.running += 1
            $0.maxRunning = max($0.maxRunning, $0.running)
        }
        hold?.blockingWait()
        state.withLock {
            $0.running -= 1
            $0.decoded.append(index)
        }
        return index
    }

    func cost(of frame: Int) -> Int { frameCost }
}

/// Makes ``FakeFrameSource``s for a player and keeps them for the test to inspect.
final class FakeSourceFactory: Sendable {
    let frameCost: Int
    let hold: BlockingGate?
    private let made = Locked<[FakeFrameSource]>([])

    init(frameCost: Int = 100, hold: BlockingGate? = nil) {
        self.frameCost = frameCost
        self.hold = hold
    }

    var sources: [FakeFrameSource] { made.withLock { $0 } }
    /// The decoding targets sources were made for, in order.
    var targets: [DecodingTarget] { targetsMade.withLock { $0 } }
    private let targetsMade = Locked<[DecodingTarget]>([])

    func make(_ data: Data, _ target: DecodingTarget) -> FakeFrameSource? {
        targetsMade.withLock { $0.append(target) }
        guard let info = AnimatedImageInfo(data: data) else { return nil }
        let source = FakeFrameSource(info: info, frameCost: frameCost, hold: hold)
        made.withLock { $0.append(source) }
        return source
    }
}

/// A barrier for threads (the decoding queue is not a task): `blockingWait()` blocks until
/// `open()`.
final class BlockingGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false

    func blockingWait() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Waits until `condition` holds for `player`, checking it at every change the player reports
/// (`onChange`): an event, not a time budget or a spin on the main actor.
@MainActor
func waitUntil<Source: AnimationFrameSource>(_ player: AnimationPlayer<Source>, _ condition: @escaping @MainActor () -> Bool) async -> Bool {
    if condition() { return true }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let previous = player.onChange
        var resumed = false
        player.onChange = { [weak player] in
            previous?()
            guard !resumed, condition() else { return }
            resumed = true
            player?.onChange = previous
            continuation.resume()
        }
    }
    return condition()
}
