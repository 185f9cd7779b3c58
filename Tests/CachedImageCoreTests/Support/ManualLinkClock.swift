import Foundation
@testable import CachedImageCore

/// A ``LinkClock`` that moves only when a test advances it; sleepers wake when it passes their
/// deadline.
final class ManualLinkClock: LinkClock, @unchecked Sendable {
    private let lock = NSLock()
    private var time: TimeInterval
    private var sleepers: [(deadline: TimeInterval, continuation: CheckedContinuation<Void, Never>)] = []

    init(now: TimeInterval = 1_000) { time = now }

    var now: TimeInterval { lock.withLock { time } }

    /// Tasks sleeping on the clock.
    var sleeperCount: Int { lock.withLock { sleepers.count } }

    func sleep(for seconds: TimeInterval) async throws {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.withLock { sleepers.append((time + seconds, continuation)) }
        }
    }

    func advance(by seconds: TimeInterval) {
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            time += seconds
            let due = sleepers.filter { $0.deadline <= time }.map(\.continuation)
            sleepers.removeAll { $0.deadline <= time }
            return due
        }
        for continuation in woken { continuation.resume() }
    }
}
