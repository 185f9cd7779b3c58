/// Download progress on its way from the pipeline's threads to the main actor, coalesced: each
/// chunk only replaces the latest value under a lock, and at most one main-actor hop is
/// outstanding at a time (``post(_:)`` says when to start one). The loader takes the value
/// when it publishes, which allows the next hop.
final class ProgressInbox: Sendable {
    private struct State {
        var latest: ImageLoader.Progress?
        var isHopPending = false
    }

    private let state = Locked(State())

    /// Stores `progress` as the latest value; `true` when the caller must hop to the main actor
    /// to deliver it (no hop is pending).
    func post(_ progress: ImageLoader.Progress) -> Bool {
        state.withLock { state in
            state.latest = progress
            guard !state.isHopPending else { return false }
            state.isHopPending = true
            return true
        }
    }

    /// The latest value (or `nil`), clearing it: the next ``post(_:)`` starts a new hop.
    func take() -> ImageLoader.Progress? {
        state.withLock { state in
            defer {
                state.latest = nil
                state.isHopPending = false
            }
            return state.latest
        }
    }
}
