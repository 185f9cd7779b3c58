#if os(iOS) || os(tvOS) || os(visionOS)
import CachedImageCore
import Foundation

/// Core's ``BackgroundDownloadSession`` on a background `URLSession`: it starts download tasks
/// (the only kind a background session runs) carrying the pipeline's ticket as their
/// `taskDescription`, and its delegate hands each finished file to core's inbox inside
/// `urlSession(_:downloadTask:didFinishDownloadingTo:)` (the file is deleted when it returns)
/// and the end of a batch of events to its completion-handler bookkeeping. Everything else
/// (what to send, staging, validation, adoption) is core's, tested on Linux.
///
/// Made by core once per identifier in a process (``BackgroundDownloadInbox``), when a pipeline
/// whose configuration has a ``ImagePipeline/Configuration/backgroundSessionIdentifier`` opens.
final class BackgroundURLSession: BackgroundDownloadSession, @unchecked Sendable {
    // `@unchecked`: both are set once, and `URLSession` is thread-safe (not marked `Sendable` by
    // the iOS 16.5 SDK).
    private let session: URLSession
    private let delegate: Delegate

    init(identifier: String, inbox: BackgroundDownloadInbox) {
        let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
        // Relaunch the app in the background when downloads finish while it is not running.
        configuration.sessionSendsLaunchEvents = true
        delegate = Delegate(inbox: inbox)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    func startDownload(_ request: URLRequest, description: String) {
        let task = session.downloadTask(with: request)
        task.taskDescription = description
        task.resume()
    }

    func runningDownloads() async -> [String] {
        // `getAllTasks`, not the `allTasks` property: the compiler crashes lowering that async
        // getter (Swift 6.3.1 against the iOS 16.5 SDK).
        await withCheckedContinuation { continuation in
            session.getAllTasks { tasks in
                continuation.resume(returning: BackgroundSessionTasks.liveDescriptions(of: tasks))
            }
        }
    }

    func cancelDownloads(withDescriptions descriptions: Set<String>) {
        session.getAllTasks { tasks in
            for task in BackgroundSessionTasks.tasks(tasks, describedBy: descriptions) { task.cancel() }
        }
    }

    func cancelAllDownloads() {
        session.getAllTasks { tasks in
            for task in tasks { task.cancel() }
        }
    }

    /// The session's delegate: forwards to core, synchronously.
    private final class Delegate: NSObject, URLSessionDownloadDelegate, Sendable {
        let inbox: BackgroundDownloadInbox

        init(inbox: BackgroundDownloadInbox) {
            self.inbox = inbox
        }

        func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
            // Moved into the staging folder before returning: the system deletes `location` then.
            inbox.didFinishDownload(
                description: downloadTask.taskDescription, request: downloadTask.originalRequest,
                response: downloadTask.response, location: location
            )
        }

        func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
            inbox.didFinishEvents()
        }
    }
}

extension ImagePipeline.Configuration {
    /// The identifier of a background `URLSession` that
    /// ``ImagePrefetcher/startPrefetching(with:inBackground:)`` hands prefetches to, so they
    /// download while the app is suspended or after the system ends it (a force-quit by the user
    /// cancels them); `nil` (the default): background
    /// prefetches run as foreground ones. iOS, tvOS and visionOS.
    ///
    /// The pipeline makes the session when it is created (one session per identifier in a
    /// process), and adopts each finished download into its disk cache, validated like any
    /// download. Hand the system's completion handler to
    /// ``ImagePipeline/handleBackgroundEvents(forSessionIdentifier:completionHandler:)``.
    ///
    /// ```swift
    /// var configuration = ImagePipeline.Configuration()
    /// configuration.backgroundSessionIdentifier = "com.example.app.images"
    /// ImagePipeline.shared = ImagePipeline(configuration: configuration)
    /// ```
    ///
    /// For the app only: an extension may not use it (a background session there needs a shared
    /// container and gives the extension no relaunch).
    public var backgroundSessionIdentifier: String? {
        get { backgroundSession?.identifier }
        set {
            backgroundSession = newValue.map { identifier in
                BackgroundSessionSetup(identifier: identifier) { identifier, inbox in
                    BackgroundURLSession(identifier: identifier, inbox: inbox)
                }
            }
        }
    }
}
#endif
