import Foundation

extension ImageLoader {
    /// At most this many progress updates a second.
    static let progressUpdatesPerSecond = 30.0

    /// The progress callback for a load, or `nil` when progress is not published. Each chunk
    /// only replaces the latest value in the load's ``ProgressInbox``; one main-actor hop at a
    /// time carries it over.
    func progressHandler(generation: Int) -> (@Sendable (Int64, Int64?) -> Void)? {
        guard reportsProgress || callbacks.onProgress != nil else {
            progressInbox = nil
            return nil
        }
        let inbox = ProgressInbox()
        progressInbox = inbox
        return { [weak self] received, expected in
            guard inbox.post(Progress(completed: received, total: expected)) else { return }
            Task { @MainActor [weak self] in
                self?.deliverProgress(generation: generation)
            }
        }
    }

    /// The handler the current load's task calls with the image's size, read from the body's
    /// first bytes, from any thread: published at once (it comes once per load, and a view
    /// reserves its space with it), when the loader publishes progress.
    func sizeHandler(generation: Int) -> (@Sendable (PixelSize) -> Void)? {
        guard reportsProgress || callbacks.onProgress != nil else { return nil }
        return { [weak self] size in
            Task { @MainActor [weak self] in self?.receivedSize(size, generation: generation) }
        }
    }

    private func receivedSize(_ size: PixelSize, generation: Int) {
        guard generation == self.generation, case .loading(let current) = phase, current.pixelSize != size else { return }
        if let url = request?.url { lastImageSize = (url, size) }
        let published = Progress(completed: current.completed, total: current.total, pixelSize: size)
        update(.loading(published))
        callbacks.onProgress?(published)
    }

    /// Publishes the latest progress now, or once the throttle interval since the last update
    /// has passed (one timer at a time; the value published is the latest at that moment).
    func deliverProgress(generation: Int) {
        guard generation == self.generation, case .loading = phase, let inbox = progressInbox else { return }
        let now = scheduler.clock.now
        if let last = lastProgressDate {
            let due = last.addingTimeInterval(1 / Self.progressUpdatesPerSecond)
            if now < due {
                guard !isProgressFlushScheduled else { return }
                isProgressFlushScheduled = true
                scheduler.schedule(after: due.timeIntervalSince(now)) { [weak self] in
                    guard let self, generation == self.generation else { return }
                    self.isProgressFlushScheduled = false
                    self.deliverProgress(generation: generation)
                }
                return
            }
        }
        guard let progress = inbox.take(), case .loading(let current) = phase else { return }
        // Never let progress go backwards.
        guard progress.completed > current.completed || (current.total == nil && progress.total != nil) else { return }
        lastProgressDate = now
        let published = Progress(
            completed: max(progress.completed, current.completed), total: progress.total ?? current.total, pixelSize: current.pixelSize
        )
        update(.loading(published))
        callbacks.onProgress?(published)
    }
}
