import Foundation
@testable import CachedImageCore

/// A ``ViewModelScheduler`` over a ``ManualClock``: deferred work runs only when the test says
/// (``endTurn()`` for work due now, ``advance(by:)`` to move time), so grace periods and
/// progress throttling are tested without sleeping.
@MainActor
final class ManualScheduler: ViewModelScheduler {
    private struct Pending {
        var due: Date
        var order: Int
        var work: @MainActor () -> Void
    }

    let manualClock: ManualClock
    private var pending: [Pending] = []
    private var nextOrder = 0

    nonisolated init(clock: ManualClock) {
        manualClock = clock
    }

    nonisolated var clock: any CacheClock { manualClock }

    func schedule(after delay: TimeInterval, _ work: @escaping @MainActor () -> Void) {
        nextOrder += 1
        pending.append(Pending(due: manualClock.now.addingTimeInterval(max(0, delay)), order: nextOrder, work: work))
    }

    /// Work waiting for its time.
    var pendingCount: Int { pending.count }

    /// The end of the current main-actor turn: runs the work due now, in order (work it
    /// schedules for now runs too).
    func endTurn() {
        while let index = pending.indices
            .filter({ pending[$0].due <= manualClock.now })
            .min(by: { (pending[$0].due, pending[$0].order) < (pending[$1].due, pending[$1].order) }) {
            pending.remove(at: index).work()
        }
    }

    /// Moves the clock and runs what became due.
    func advance(by seconds: TimeInterval) {
        manualClock.advance(by: seconds)
        endTurn()
    }
}

/// Drives an ``ImageLoader`` the way SwiftUI drives `CachedAsyncImage` (and a custom view's
/// `loadImage(_:into:)`): `body` renders, then `ImageLifecycleModifier`'s callbacks: `onAppear`
/// (an appearance, then a load), `.task(id:)` (a load), `onDisappear`, for one request.
@MainActor
struct SwiftUIDriver {
    let loader: ImageLoader
    let request: ImageRequest
    /// `CachedAsyncImage`'s body asks for the request's phase (a synchronous memory lookup); a
    /// custom view over `CachedImageModel` reads the loader's current phase, changing nothing.
    var rendersRequest = true

    @discardableResult
    func render() -> ImageLoader.Phase {
        rendersRequest ? loader.phase(for: request) : loader.phase
    }

    /// The view is inserted: body, onAppear, then its task.
    func appear() {
        render()
        onAppear()
        loader.load(request)
    }

    private func onAppear() {
        loader.didAppear()
        loader.load(request)
    }

    /// The content closure switched branches under a `Group` (each child carries the modifiers):
    /// the new branch appears and runs its task; the old one disappears. Animated, SwiftUI
    /// delivers the new `onAppear` before the old `onDisappear`.
    func branchSwap(animated: Bool) {
        render()
        if animated {
            onAppear()
            loader.load(request)
            loader.didDisappear()
        } else {
            loader.didDisappear()
            onAppear()
            loader.load(request)
        }
        render()
    }
}

/// Yields until `condition`, read on the main actor, holds (failing after many rounds instead
/// of hanging forever).
@MainActor
func eventuallyOnMain(_ condition: () -> Bool, rounds: Int = 100_000) async -> Bool {
    for _ in 0..<rounds {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}
