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
    /// The encodes queued or running, and the queue, made for the first encode (most pipelines
    /// process nothing, and making a queue is a share of making a pipeline).
    private let state = Locked<(pending: Int, queue: DispatchQueue?)>((0, nil))

    init(limit: Int = 8) {
        self.limit = max(1, limit)
    }

    /// Queues `work`; `false` (and nothing queued) when ``limit`` encodes are waiting already.
    @discardableResult
    func enqueue(_ work: @escaping @Sendable () -> Void) -> Bool {
        let queue = state.withLock { state -> DispatchQueue? in
            guard state.pending < limit else { return nil }
            state.pending += 1
            if let queue = state.queue { return queue }
            let queue = DispatchQueue(label: "CachedImage.DerivedImageEncoding", qos: .utility)
            state.queue = queue
            return queue
        }
        guard let queue else { return false }
        queue.async { [state] in
            work()
            state.withLock { $0.pending -= 1 }
        }
        return true
    }

    /// Returns once every encode queued before the call is done.
    func waitUntilIdle() {
        state.withLock { $0.queue }?.sync {}
    }
}
