import Foundation

extension ImagePipeline {
    /// Something the pipeline did, for logging and debugging. Subscribe with
    /// ``ImagePipeline/events(bufferingNewest:)``.
    ///
    /// ```swift
    /// Task {
    ///     for await event in pipeline.events() {
    ///         print(event)
    ///     }
    /// }
    /// ```
    public enum Event: Sendable, CustomStringConvertible {
        /// A request started (``ImageTask/id`` identifies it in later events).
        case taskStarted(id: Int, url: URL?)
        /// A request produced an image.
        case taskCompleted(id: Int, url: URL?, source: ImageResponse.Source, duration: TimeInterval)
        /// A request failed.
        case taskFailed(id: Int, url: URL?, error: ImagePipeline.Error)
        /// A request was cancelled by its caller.
        case taskCancelled(id: Int, url: URL?)
        /// A request went to the network; `isConditional` for revalidations.
        case networkRequest(url: URL, isConditional: Bool)
        /// A revalidation finished: `notModified` when the server answered 304.
        case revalidated(url: URL, notModified: Bool)
        /// A stale entry was served because the network failed and the entry allowed it.
        case servedStale(url: URL, error: ImagePipeline.Error)
        /// A stale entry within its `stale-while-revalidate` window was served at once, and one
        /// revalidation started in the background (its outcome follows as ``revalidated(url:notModified:)``).
        case revalidatingInBackground(url: URL)
        /// The disk cache failed to write or remove an entry (disk full, permissions...). The
        /// pipeline keeps serving from memory and the network.
        case diskCacheFailed(DiskCache.Error)

        public var description: String {
            switch self {
            case .taskStarted(let id, let url):
                "task \(id) started \(url?.absoluteString ?? "nil")"
            case .taskCompleted(let id, let url, let source, let duration):
                "task \(id) completed from \(source) in \(Int(duration * 1000)) ms \(url?.absoluteString ?? "nil")"
            case .taskFailed(let id, _, let error):
                "task \(id) failed: \(error)"
            case .taskCancelled(let id, let url):
                "task \(id) cancelled \(url?.absoluteString ?? "nil")"
            case .networkRequest(let url, let isConditional):
                "\(isConditional ? "conditional GET" : "GET") \(url.absoluteString)"
            case .revalidated(let url, let notModified):
                "revalidated \(url.absoluteString): \(notModified ? "304 not modified" : "changed")"
            case .servedStale(let url, let error):
                "served stale \(url.absoluteString) after: \(error)"
            case .revalidatingInBackground(let url):
                "served stale \(url.absoluteString) while revalidating it in the background"
            case .diskCacheFailed(let error):
                "disk cache error: \(error)"
            }
        }
    }
}
