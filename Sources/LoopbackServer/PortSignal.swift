import ToolSupport

/// Hands the bound port from the server's start-up callback to ``LoopbackServer/start()``, or the
/// error that stopped the server from starting. Resolved once; later calls are ignored.
final class PortSignal: Sendable {
    private struct State {
        var result: Result<Int, any Error>?
        var waiter: CheckedContinuation<Int, any Error>?
    }

    private let state = Protected(State())

    func resolve(_ result: Result<Int, any Error>) {
        let waiter: CheckedContinuation<Int, any Error>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(with: result)
    }

    var port: Int {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Int, any Error>? = state.withLock { state in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}
