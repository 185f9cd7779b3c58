import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a background session's delegate calls: a finished download staged synchronously (the
/// system deletes its file once the callback returns), and the end of a batch of events, which
/// calls the completion handlers the app was given
/// (`application(_:handleEventsForBackgroundURLSession:completionHandler:)`).
///
/// One per session identifier in a process (``registered(_:staging:clock:)``): only one session
/// object may exist per identifier, so a second pipeline with the same identifier and cache
/// directory shares the first's.
package final class BackgroundDownloadInbox: Sendable {
    /// Where finished downloads wait for adoption.
    package let staging: BackgroundDownloadStaging
    private let clock: any CacheClock
    private let state = Locked(State())

    private struct State {
        /// The app's completion handlers waiting for the end of the session's events.
        var completionHandlers: [@Sendable () -> Void] = []
        /// The events ended with no handler given yet: the next one is called at once.
        var finishedWithoutHandler = false
        /// Called after each staged download (the pipelines that adopt).
        var stagedObservers: [UUID: @Sendable () -> Void] = [:]
    }

    package init(staging: BackgroundDownloadStaging, clock: any CacheClock) {
        self.staging = staging
        self.clock = clock
    }

    /// Stages a finished download: moves the file at `location` into the staging folder with
    /// the record of its task (`description`: the pipeline's ticket), request and response.
    /// Synchronous. A task the pipeline did not start, or a response that is not HTTP, is not
    /// staged (nor is anything the file system refuses); nothing else is judged here: adoption
    /// validates the bytes like any download.
    ///
    /// - Returns: Whether the download was staged.
    @discardableResult
    package func didFinishDownload(description: String?, request: URLRequest?, response: URLResponse?, location: URL) -> Bool {
        do {
            let record = try BackgroundDownloadRecord(description: description, request: request, response: response, responseTime: clock.now)
            try staging.stage(fileAt: location, record: record)
        } catch {
            return false
        }
        let observers = state.withLock { state in
            // A new batch of events: an end seen before belonged to an earlier one.
            state.finishedWithoutHandler = false
            return Array(state.stagedObservers.values)
        }
        for observer in observers { observer() }
        return true
    }

    /// The session delivered every event of its batch
    /// (`urlSessionDidFinishEvents(forBackgroundURLSession:)`): calls the completion handlers
    /// waiting, or, with none yet, calls the next one as soon as it is given.
    package func didFinishEvents() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            defer { state.completionHandlers.removeAll() }
            state.finishedWithoutHandler = state.completionHandlers.isEmpty
            return state.completionHandlers
        }
        for handler in handlers { handler() }
    }

    /// Keeps the app's completion handler until the session's events end (called at once when
    /// they ended before it was given).
    package func addCompletionHandler(_ handler: @escaping @Sendable () -> Void) {
        let callNow = state.withLock { state -> Bool in
            if state.finishedWithoutHandler {
                state.finishedWithoutHandler = false
                return true
            }
            state.completionHandlers.append(handler)
            return false
        }
        if callNow { handler() }
    }

    /// The completion handlers waiting for the end of the session's events (for tests).
    package var waitingHandlerCount: Int { state.withLock { $0.completionHandlers.count } }

    /// Calls `observer` after each staged download until the returned token is removed.
    func addStagedObserver(_ observer: @escaping @Sendable () -> Void) -> UUID {
        let token = UUID()
        state.withLock { $0.stagedObservers[token] = observer }
        return token
    }

    func removeStagedObserver(_ token: UUID) {
        state.withLock { $0.stagedObservers[token] = nil }
    }

    // MARK: One per identifier

    /// An identifier's inbox and session.
    package struct Registration: Sendable {
        package var inbox: BackgroundDownloadInbox
        package var session: any BackgroundDownloadSession
    }

    private static let registry = Locked<[String: Registration]>([:])

    /// The inbox and session for `setup`'s identifier, made on first use; `nil` when the
    /// identifier is already used in this process for another staging folder (another cache
    /// directory): the session's downloads stage into the first one's.
    static func registered(_ setup: BackgroundSessionSetup, staging: BackgroundDownloadStaging, clock: any CacheClock) -> Registration? {
        registry.withLock { registry in
            if let existing = registry[setup.identifier] {
                return existing.inbox.staging.folderPath == staging.folderPath ? existing : nil
            }
            let inbox = BackgroundDownloadInbox(staging: staging, clock: clock)
            let registration = Registration(inbox: inbox, session: setup.makeSession(setup.identifier, inbox))
            registry[setup.identifier] = registration
            return registration
        }
    }
}
