import Foundation

/// Inspection for tests: nothing in the library calls it.
extension DecodingQueue {
    /// Whether the caller runs on a decoding queue.
    static var isCurrent: Bool { DispatchQueue.getSpecific(key: marker) == true }
}
