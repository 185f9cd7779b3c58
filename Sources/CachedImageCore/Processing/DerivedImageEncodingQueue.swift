@preconcurrency import Dispatch
import Foundation

/// Where processed images are encoded for the disk (``ImagePipeline/DiskCachePolicy``): after
/// the image was delivered, one at a time on a background queue, never on Swift concurrency's
/// shared threads. Bounded: with ``limit`` encodes waiting, a new one is dropped (its processed
/// image is not kept on disk this time; the next load of it encodes again), so a burst of
/// thumbnails never holds more than a few decoded bitmaps only for their encode.
///
/// The disk cache's `flush()` waits for the encodes queued before it (a flush dependency), so
/// what a flush promises is on disk includes them.
final class DerivedImageEncodingQueue: Sendable {
    /// The most encodes queued or running at once.
    let limit: Int
    private let queue = DispatchQueue(label: "CachedImage.DerivedImageEncoding", qos: .utility)
    private let pending = Locked(0)

    init(limit: Int = 8) {
        self.limit = max(1, limit)
    }

    /// Queues `work`; `false` (and nothing queued) when ``limit`` encodes are waiting already.
    @discardableResult
    func enqueue(_ work: @escaping @Sendable () -> Void) -> Bool {
        let admitted = pending.withLock { count -> Bool in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard admitted else { return false }
        queue.async { [pending] in
            work()
            pending.withLock { $0 -= 1 }
        }
        return true
    }

    /// Returns once every encode queued before the call is done.
    func waitUntilIdle() {
        queue.sync {}
    }
}
