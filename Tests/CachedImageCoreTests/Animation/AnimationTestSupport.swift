import Foundation
@testable import CachedImageCore

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
