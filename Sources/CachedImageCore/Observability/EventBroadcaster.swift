/// Fans events out to any number of `AsyncStream` subscribers; a stream that is no longer
/// iterated removes itself. Costs one lock and nothing else when nobody listens.
final class EventBroadcaster<Event: Sendable>: Sendable {
    private let continuations = Locked<[Int: AsyncStream<Event>.Continuation]>([:])
    private let nextID = Locked(0)

    func stream(bufferingNewest limit: Int) -> AsyncStream<Event> {
        let id = nextID.withLock { value -> Int in
            value += 1
            return value
        }
        // The closure runs synchronously inside the initialiser (`makeStream` is too new for iOS 16's SDK).
        return AsyncStream(Event.self, bufferingPolicy: .bufferingNewest(limit)) { continuation in
            continuation.onTermination = { [weak self] _ in
                self?.continuations.withLock { _ = $0.removeValue(forKey: id) }
            }
            continuations.withLock { $0[id] = continuation }
        }
    }

    func send(_ event: Event) {
        let targets = continuations.withLock { Array($0.values) }
        for continuation in targets { continuation.yield(event) }
    }

    /// Whether anyone listens, so callers can skip building events nobody reads.
    var hasSubscribers: Bool { continuations.withLock { !$0.isEmpty } }
}
