import Foundation

/// Transient failures asked again (``FailureRecovery``): of the load (the phase is `.failure`),
/// or of the revalidation behind a stale image kept on screen (``ImageResponse/revalidationError``).
extension ImageLoader {
    /// Registers a transient failure (of the load, or of the revalidation behind the image on
    /// screen) with ``FailureRecovery``, which says when to ask again.
    func waitForRecovery(after error: any Error) {
        guard FailureRecovery.isTransient(error), !isWaitingForRecovery else { return }
        isWaitingForRecovery = true
        (failureRecovery ?? .shared).register(self)
    }

    /// A reason to ask a transient failure again arrived (``FailureRecovery``): ask now if the
    /// view is on screen, else on its next appearance. A stale image whose revalidation failed
    /// is revalidated again behind it.
    func failureBecameStale() {
        isWaitingForRecovery = false
        guard let request, let error = phase.error, FailureRecovery.isTransient(error) else { return }
        if visibility.isOnScreen {
            askAgain(request)
        } else {
            failureIsStale = true
        }
    }

    /// Asks a transient failure again: the load, or the revalidation behind a stale image.
    func askAgain(_ request: ImageRequest) {
        failureIsStale = false
        if case .success = phase {
            revalidate()
        } else {
            start(request)
        }
    }

    /// The phase leaves a failure (another load starts, or the loader is reset).
    func leaveFailure() {
        failureIsStale = false
        if isWaitingForRecovery {
            isWaitingForRecovery = false
            (failureRecovery ?? .shared).unregister(self)
        }
    }
}
