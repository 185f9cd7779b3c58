@preconcurrency import Dispatch
import Foundation

/// Threads for expensive decodes, admitted by the memory they will allocate: a decode starts
/// when the bytes of the decodes already running plus its own fit the budget
/// (``ImagePipeline/Configuration/decodingMemoryBudget``), or when nothing else runs (so an image
/// larger than the whole budget still decodes, alone). Waiting decodes start in the order they
/// came; one cancelled while it waits leaves the line. A large image never holds one of Swift
/// concurrency's few shared threads for milliseconds, and ten 48 MP photos never decode at once.
final class DecodingQueue: Sendable {
    /// Set on the decoding queue (see `isCurrent` in DecodingQueue+TestSupport).
    static let marker = DispatchSpecificKey<Bool>()

    /// The concurrent queue every pipeline's decodes run on (the budget is each pipeline's own).
    /// One for the process, made on the first expensive decode: a queue per pipeline cost every
    /// `ImagePipeline(configuration:)` about 5,000 instructions to make, and its release woke a
    /// thread.
    private static let queue: DispatchQueue = {
        let queue = DispatchQueue(label: "CachedImage.decoding", qos: .userInitiated, attributes: .concurrent)
        queue.setSpecific(key: DecodingQueue.marker, value: true)
        return queue
    }()

    /// The most bytes that decodes admitted together may allocate.
    let budget: Int
    let state: Locked<State>

    struct State {
        let budget: Int
        var bytesInFlight = 0
        var running = 0
        /// The most bytes in flight at once since the queue was made (benchmarks and tests).
        var peakBytesInFlight = 0
        var waiting: [Waiter] = []
        var nextID = 0
    }

    struct Waiter {
        var id: Int
        var bytes: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    init(budget: Int) {
        self.budget = max(1, budget)
        state = Locked(State(budget: max(1, budget)))
    }

    /// Runs `body`, which allocates about `bytes`, on a decoding thread once the budget admits it.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting; `body`'s errors.
    func run<T: Sendable>(bytes: Int, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        let bytes = max(0, bytes)
        try await admit(bytes)
        defer { release(bytes) }
        return try await withCheckedThrowingContinuation { continuation in
            Self.queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Bytes admitted and not yet released.
    var bytesInFlight: Int { state.withLock { $0.bytesInFlight } }

    private func admit(_ bytes: Int) async throws {
        if state.withLock({ $0.startIfFree(bytes) }) { return }
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Decided under the same lock as the append, so a release in between is never missed.
                let started = state.withLock { state -> Bool? in
                    if Task.isCancelled { return nil }
                    if state.startIfFree(bytes) { return true }
                    state.waiting.append(Waiter(id: id, bytes: bytes, continuation: continuation))
                    return false
                }
                switch started {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: continuation.resume()
                case false?: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
            // Whoever waited behind it may fit now.
            if waiter != nil { startWaiters() }
        }
    }

    private func release(_ bytes: Int) {
        state.withLock { state in
            state.bytesInFlight -= bytes
            state.running -= 1
        }
        startWaiters()
    }

    /// Starts waiting decodes, first come first served, while they fit.
    private func startWaiters() {
        let admitted = state.withLock { state -> [Waiter] in
            var admitted: [Waiter] = []
            while let first = state.waiting.first, state.running == 0 || state.bytesInFlight + first.bytes <= state.budget {
                state.waiting.removeFirst()
                state.start(first.bytes)
                admitted.append(first)
            }
            return admitted
        }
        for waiter in admitted { waiter.continuation.resume() }
    }
}

extension DecodingQueue.State {
    /// Starts a decode of `bytes` when nobody waits and it fits (or nothing runs).
    mutating func startIfFree(_ bytes: Int) -> Bool {
        guard waiting.isEmpty, running == 0 || bytesInFlight + bytes <= budget else { return false }
        start(bytes)
        return true
    }

    mutating func start(_ bytes: Int) {
        bytesInFlight += bytes
        running += 1
        peakBytesInFlight = max(peakBytesInFlight, bytesInFlight)
    }
}
