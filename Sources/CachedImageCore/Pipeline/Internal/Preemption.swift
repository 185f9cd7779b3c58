import Foundation

/// A running operation's promise to give its slot back when ``WorkQueue`` needs it for a more
/// important one: the queue calls ``preempt()``, the operation's handler stops its work (the
/// downloader cancels the transfer and waits for a slot again).
final class Preemption: Sendable {
    private let state = Locked<(isPreempted: Bool, handler: (@Sendable () -> Void)?)>((false, nil))

    /// Whether the queue asked for the slot back.
    var isPreempted: Bool { state.withLock { $0.isPreempted } }

    /// Calls `handler` when the queue asks for the slot (at once if it already did).
    func onPreempt(_ handler: @escaping @Sendable () -> Void) {
        let fire = state.withLock { state -> Bool in
            if state.isPreempted { return true }
            state.handler = handler
            return false
        }
        if fire { handler() }
    }

    /// Asks the operation to give its slot back; only the first call counts.
    func preempt() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.isPreempted else { return nil }
            state.isPreempted = true
            defer { state.handler = nil }
            return state.handler
        }
        handler?()
    }
}
