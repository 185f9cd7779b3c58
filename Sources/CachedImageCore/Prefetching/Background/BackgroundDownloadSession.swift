import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The system's download session that runs prefetches while the app is away: on Apple
/// platforms the Apple layer's background `URLSession` (`BackgroundURLSession`), in tests a
/// fake. It only carries out: every decision (what to send, where the bytes go, whether they are
/// kept) is core's.
package protocol BackgroundDownloadSession: Sendable {
    /// Starts downloading `request`; `description` travels with the task (a background
    /// `URLSessionTask`'s `taskDescription`, kept across relaunches) and comes back to
    /// ``BackgroundDownloadInbox/didFinishDownload(description:request:response:location:)``.
    func startDownload(_ request: URLRequest, description: String)
    /// The descriptions of the downloads running or waiting.
    func runningDownloads() async -> [String]
    /// Cancels the downloads whose description is in `descriptions`.
    func cancelDownloads(withDescriptions descriptions: Set<String>)
    /// Cancels every download.
    func cancelAllDownloads()
}

/// A pipeline's background session: its identifier and how to make it
/// (``ImagePipeline/Configuration/backgroundSession``; the Apple layer's
/// `backgroundSessionIdentifier` sets it). A class: one reference in every copy of the
/// configuration, whose copies are on the path of opening a pipeline.
package final class BackgroundSessionSetup: Sendable {
    /// The session's identifier (`URLSessionConfiguration.background(withIdentifier:)`).
    package let identifier: String
    /// Makes the session, once per identifier in a process, with the inbox its delegate feeds.
    package let makeSession: @Sendable (_ identifier: String, _ inbox: BackgroundDownloadInbox) -> any BackgroundDownloadSession

    package init(
        identifier: String,
        makeSession: @escaping @Sendable (_ identifier: String, _ inbox: BackgroundDownloadInbox) -> any BackgroundDownloadSession
    ) {
        self.identifier = identifier
        self.makeSession = makeSession
    }
}

/// Which of a `URLSession`'s tasks the Apple layer's background session reports and cancels
/// (`getAllTasks` lists finished and cancelled tasks too, for a while).
package enum BackgroundSessionTasks {
    /// The descriptions of the tasks still running or waiting: what
    /// ``BackgroundDownloadSession/runningDownloads()`` returns.
    package static func liveDescriptions(of tasks: [URLSessionTask]) -> [String] {
        tasks.filter { $0.state == .running || $0.state == .suspended }.compactMap(\.taskDescription)
    }

    /// The tasks whose description is in `descriptions`: what
    /// ``BackgroundDownloadSession/cancelDownloads(withDescriptions:)`` cancels.
    package static func tasks(_ tasks: [URLSessionTask], describedBy descriptions: Set<String>) -> [URLSessionTask] {
        tasks.filter { $0.taskDescription.map(descriptions.contains) == true }
    }
}
