@preconcurrency import Dispatch
import Foundation

/// Decodes the frames of one animated image: an ImageIO `CGImageSource` on Apple platforms, a
/// double in tests. A player makes one per image it plays and never shares it.
package protocol AnimationFrameSource: AnyObject, Sendable {
    /// A decoded frame.
    associatedtype Frame: Sendable

    /// The animation's timing.
    var info: AnimatedImageInfo { get }

    /// Decodes frame `index` now; `nil` when it cannot be decoded. ``SerialFrameDecoder`` calls
    /// it on one thread at a time, off the main actor.
    func frame(at index: Int) -> Frame?

    /// The bytes `frame` occupies in memory.
    func cost(of frame: Frame) -> Int
}

/// Runs a frame source's decodes one at a time on a serial queue of its own, never on the
/// cooperative pool: a decode still running for a cancelled playback and the next playback's
/// decode queue up instead of using the source from two threads.
package final class SerialFrameDecoder<Source: AnimationFrameSource>: Sendable {
    package let source: Source
    private let queue = DispatchQueue(label: "CachedImage.animation.decoding", qos: .userInitiated)

    package init(_ source: Source) {
        self.source = source
    }

    /// Frame `index`, decoded on the queue.
    package func frame(at index: Int) async -> Source.Frame? {
        await withCheckedContinuation { continuation in
            queue.async { [source] in continuation.resume(returning: source.frame(at: index)) }
        }
    }
}
