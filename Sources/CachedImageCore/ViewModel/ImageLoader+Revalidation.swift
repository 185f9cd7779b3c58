import Foundation

/// An image kept for display (HTML's list of available images, ``ImagePipeline/shownImage(for:)``)
/// is shown at once and revalidated behind it, as its headers require: the view swaps to the
/// new image only if it changed, never through a placeholder; a failed revalidation keeps it.
extension ImageLoader {
    /// Whether the image on screen is one kept for display whose revalidation is in flight.
    public var isRevalidating: Bool { revalidation != nil }

    /// Asks the pipeline for the current request behind the image on screen (the disk's stale
    /// entry revalidated, or a download), at the off-screen priority while the view is away.
    func revalidate() {
        guard let request, case .success(let shown) = phase else { return }
        revalidation?.cancel()
        var taskRequest = request
        if !visibility.isOnScreen, let priority = offscreenBehavior.offscreenPriority {
            taskRequest.priority = min(priority, request.priority)
        }
        let generation = self.generation
        let task = pipeline.imageTask(with: taskRequest)
        revalidation = task
        work[generation] = Task { [weak self] in
            let response = try? await task.response
            self?.revalidated(response, shown: shown, generation: generation)
        }
    }

    private func revalidated(_ response: ImageResponse?, shown: ImageResponse, generation: Int) {
        work[generation] = nil
        guard generation == self.generation, revalidation != nil else { return }
        revalidation = nil
        // A failure (offline, a dropped connection) keeps the image on screen.
        guard let response, case .success = phase else { return }
        pipeline.keepShown(response)
        guard Self.isChanged(from: shown, to: response) else { return }
        update(.success(response))
    }

    /// Whether `response` shows another picture than `shown`: new bytes from the network, or
    /// another size. A `304` (`.revalidated`) or a fresh stored copy is the same picture.
    static func isChanged(from shown: ImageResponse, to response: ImageResponse) -> Bool {
        response.source == .network || response.image.pixelSize != shown.image.pixelSize
    }
}
