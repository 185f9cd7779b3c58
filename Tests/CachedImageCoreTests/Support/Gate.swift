@testable import CachedImageCore

/// A one-shot barrier: `wait()` suspends until `open()` is called (immediately once open).
/// Lets tests hold work in flight and release it deterministically, without sleeping.
final class Gate: Sendable {
    private let state = Locked<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Yields until `condition` holds, failing after many rounds instead of hanging forever.
func eventually(_ condition: @Sendable () -> Bool, rounds: Int = 100_000) async -> Bool {
    for _ in 0..<rounds {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}

/// A thread-safe list tests append to from concurrent tasks.
final class Recorder<Element: Sendable>: Sendable {
    private let storage = Locked<[Element]>([])
    func append(_ element: Element) { storage.withLock { $0.append(element) } }
    var values: [Element] { storage.withLock { $0 } }
}
