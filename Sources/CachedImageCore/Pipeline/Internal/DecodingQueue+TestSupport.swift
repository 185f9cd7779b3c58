import Foundation

/// Inspection for tests: nothing in the library calls it.
extension DecodingQueue {
    /// Whether the caller runs on a decoding queue.
    static var isCurrent: Bool { DispatchQueue.getSpecific(key: marker) == true }

    /// Decodes waiting for the budget.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Decodes running now.
    var runningCount: Int { state.withLock { $0.running } }

    /// The most bytes admitted at once so far.
    var peakBytesInFlight: Int { state.withLock { $0.peakBytesInFlight } }
}
