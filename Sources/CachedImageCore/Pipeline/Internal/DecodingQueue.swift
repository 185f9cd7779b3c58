@preconcurrency import Dispatch
import Foundation

/// Threads for expensive decodes, so a large image never holds one of Swift concurrency's few
/// shared threads for milliseconds: one serial queue per core, used in turn.
final class DecodingQueue: Sendable {
    /// The queues all decoding queues share, sized to the machine.
    static let shared = DecodingQueue(width: max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// Set on every decoding queue (see `isCurrent` in DecodingQueue+TestSupport).
    static let marker = DispatchSpecificKey<Bool>()
    private let queues: [DispatchQueue]
    private let next = Locked(0)

    init(width: Int) {
        queues = (0..<width).map { index in
            let queue = DispatchQueue(label: "CachedImage.decoding.\(index)", qos: .userInitiated)
            queue.setSpecific(key: DecodingQueue.marker, value: true)
            return queue
        }
    }

    /// Runs `body` on the next decoding queue and returns its result.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let queue = next.withLock { index -> DispatchQueue in
            defer { index = (index + 1) % queues.count }
            return queues[index]
        }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
