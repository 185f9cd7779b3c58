import Foundation

extension ImagePipeline {
    /// Takes the completion handler the system gives an app relaunched for its background
    /// session's events, and calls it, on the main actor, once the session delivered them all
    /// and the pipeline adopted every finished prefetch into its disk cache (the system may
    /// suspend the app as soon as the handler is called). Call it from
    /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)`, with a pipeline
    /// whose configuration has the same `backgroundSessionIdentifier`: creating the pipeline
    /// recreates the session, which then receives the events.
    ///
    /// ```swift
    /// func application(
    ///     _ application: UIApplication,
    ///     handleEventsForBackgroundURLSession identifier: String,
    ///     completionHandler: @escaping () -> Void
    /// ) {
    ///     let handled = ImagePipeline.shared.handleBackgroundEvents(forSessionIdentifier: identifier) {
    ///         completionHandler()
    ///     }
    ///     if !handled { completionHandler() } // Another session's events.
    /// }
    /// ```
    ///
    /// - Returns: `false`, without keeping the handler, when `identifier` is not this pipeline's
    ///   background session (or the pipeline has none: no disk cache): call the handler
    ///   yourself then.
    public func handleBackgroundEvents(
        forSessionIdentifier identifier: String,
        completionHandler: @escaping @MainActor () -> Void
    ) -> Bool {
        guard let backgroundDownloads, backgroundDownloads.identifier == identifier else { return false }
        backgroundDownloads.inbox.addCompletionHandler { [backgroundDownloads] in
            Task {
                await backgroundDownloads.adoptStagedDownloads().value
                await MainActor.run { completionHandler() }
            }
        }
        return true
    }

    /// Returns once the pipeline's background session delivered its events and the pipeline
    /// adopted every finished prefetch into its disk cache: the action of a SwiftUI app's
    /// `.backgroundTask(.urlSession(_:))`, after which the system may suspend the app. The
    /// pipeline must have the same `backgroundSessionIdentifier`.
    ///
    /// ```swift
    /// WindowGroup { FeedView() }
    ///     .backgroundTask(.urlSession("com.example.images")) {
    ///         await ImagePipeline.shared.handleBackgroundEvents(forSessionIdentifier: "com.example.images")
    ///     }
    /// ```
    ///
    /// Cancelling the calling task (SwiftUI does when the app's background time runs out) ends
    /// the wait at once; what is staged then is adopted at the next launch.
    ///
    /// - Returns: `false` at once when `identifier` is not this pipeline's background session
    ///   (or the pipeline has none: no disk cache).
    @discardableResult
    public func handleBackgroundEvents(forSessionIdentifier identifier: String) async -> Bool {
        guard let backgroundDownloads, backgroundDownloads.identifier == identifier else { return false }
        // Resumed once: by the end of the events and their adoption, or by a cancellation.
        let waiting = Locked<CheckedContinuation<Void, Never>?>(nil)
        let resume: @Sendable () -> Void = {
            let continuation = waiting.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }
            continuation?.resume()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiting.withLock { $0 = continuation }
                if Task.isCancelled {
                    resume()
                    return
                }
                backgroundDownloads.inbox.addCompletionHandler { [backgroundDownloads] in
                    Task {
                        await backgroundDownloads.adoptStagedDownloads().value
                        resume()
                    }
                }
            }
        } onCancel: {
            resume()
        }
        return true
    }

    /// Adopts the background downloads staged so far and returns once they are in the disk cache
    /// (or refused and deleted). The pipeline does it by itself when it opens and after each
    /// download; for tests and tools.
    package func adoptBackgroundDownloads() async {
        await backgroundDownloads?.adoptStagedDownloads().value
    }
}
