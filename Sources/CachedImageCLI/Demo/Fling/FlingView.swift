import Foundation
import CachedImageCore

/// One cell of the fling as a lazy stack keeps it: it appears and disappears (possibly more than
/// once) and holds whatever decoded image it shows.
@MainActor
protocol FlingView: AnyObject {
    func appear()
    func disappear()
    /// Whether a load the view started is still running.
    var isLoading: Bool { get }
    /// Decoded bytes the view holds now (the image it shows).
    var heldBytes: Int { get }
    /// Whether the image the view holds is also in its client's memory cache (not counted twice).
    var heldImageIsCached: Bool { get }
    /// Loads that delivered their image after the view had left the screen.
    var completedAfterLeaving: Int { get }
    /// Whether the view shows an image.
    var showsImage: Bool { get }
    /// Since when the view shows the image it shows now; `nil` while it shows none.
    var shownSince: ContinuousClock.Instant? { get }
}

/// A view over ``DemoClient/load(_:url:)`` in a task, as a SwiftUI view's `.task` runs it:
/// started on appear, cancelled on disappear when `cancelsOnDisappear` (what `AsyncImage`
/// does), a result that arrives after a cancellation dropped.
@MainActor
final class TaskFlingView: FlingView {
    private let client: any DemoClient
    private let image: FeedImage
    private let url: URL
    private let cancelsOnDisappear: Bool
    private let cellPixels: Int
    private var task: Task<Void, Never>?
    /// Loads started and not yet returned (a cancelled one may still be finishing).
    private var running = 0
    private var isVisible = false
    private(set) var heldBytes = 0
    private(set) var completedAfterLeaving = 0
    private(set) var shownSince: ContinuousClock.Instant?
    var heldImageIsCached: Bool { false }
    var isLoading: Bool { running > 0 }
    var showsImage: Bool { heldBytes > 0 }

    init(client: any DemoClient, image: FeedImage, url: URL, cancelsOnDisappear: Bool, cellPixels: Int) {
        self.client = client
        self.image = image
        self.url = url
        self.cancelsOnDisappear = cancelsOnDisappear
        self.cellPixels = cellPixels
    }

    func appear() {
        isVisible = true
        guard heldBytes == 0, task == nil else { return }
        let client = client, image = image, url = url, cellPixels = cellPixels
        running += 1
        task = Task { [weak self] in
            let shown = await client.load(image, url: url)
            let bytes = shown.data.map { DemoDecoder.decodedBytes(of: $0, cellPixels: cellPixels) } ?? 0
            self?.finish(bytes: bytes, cancelled: Task.isCancelled)
        }
    }

    func disappear() {
        isVisible = false
        if cancelsOnDisappear, let task {
            task.cancel()
            self.task = nil
        }
    }

    private func finish(bytes: Int, cancelled: Bool) {
        running -= 1
        if bytes > 0, !isVisible { completedAfterLeaving += 1 }
        guard !cancelled else { return }  // A cancelled view drops what arrives.
        task = nil
        heldBytes = bytes
        if bytes > 0, shownSince == nil { shownSince = .now }
    }
}

/// CachedImage's view: an ``ImageLoader`` driven as `CachedAsyncImage` drives it (`phase(for:)`
/// for the frame, `onAppear`, the task's `load`, `onDisappear`), with the loader's DEFAULT
/// off-screen behaviour.
@MainActor
final class LoaderFlingView: FlingView {
    private let loader: ImageLoader
    private let request: ImageRequest
    private var isVisible = false
    private(set) var completedAfterLeaving = 0
    private(set) var shownSince: ContinuousClock.Instant?

    init(pipeline: ImagePipeline, request: ImageRequest) {
        loader = ImageLoader(pipeline: pipeline)
        self.request = request
        loader.onChange = { [weak self] phase in
            guard let self else { return }
            self.noteShown()
            guard !self.isVisible, case .success = phase else { return }
            self.completedAfterLeaving += 1
        }
    }

    func appear() {
        isVisible = true
        _ = loader.phase(for: request)  // the frame
        loader.didAppear()
        loader.load(request)            // the view's task
        noteShown()
    }

    private func noteShown() {
        if loader.phase.response == nil {
            shownSince = nil
        } else if shownSince == nil {
            shownSince = .now
        }
    }

    func disappear() {
        isVisible = false
        loader.didDisappear()
    }

    var isLoading: Bool {
        if case .loading = loader.phase { return true }
        return false
    }

    var heldBytes: Int { loader.phase.response?.image.cost ?? 0 }

    var heldImageIsCached: Bool {
        loader.pipeline.memoryCache?.containsValue(forKey: ImageCacheKey(request)) ?? false
    }

    var showsImage: Bool { loader.phase.response != nil }
}
