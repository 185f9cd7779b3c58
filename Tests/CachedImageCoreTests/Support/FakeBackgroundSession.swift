import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import CachedImageCore

/// A background session as the system runs one, for tests: it records what the pipeline hands
/// it, and `finish` plays the system's part, downloading a started request from the loopback
/// server (real bytes, real header fields) into a file and calling the delegate's inbox, as the
/// Apple layer's `urlSession(_:downloadTask:didFinishDownloadingTo:)` does, after which the file
/// is deleted whatever the inbox did with it.
final class FakeBackgroundSession: BackgroundDownloadSession {
    struct Started: Sendable {
        var request: URLRequest
        var description: String
    }

    /// Every download started, and which of them (by index) finished or were cancelled: each
    /// is a task of its own, as in a `URLSession`, even when two have the same description.
    private let state = Locked((started: [Started](), done: Set<Int>(), listings: 0))
    let inbox = Locked<BackgroundDownloadInbox?>(nil)

    /// The setup a pipeline configuration takes; `identifier` unique per test, as sessions are
    /// one per identifier in a process.
    static func setup(identifier: String = "test.\(UUID().uuidString)") -> (BackgroundSessionSetup, FakeBackgroundSession) {
        let session = FakeBackgroundSession()
        let setup = BackgroundSessionSetup(identifier: identifier) { _, inbox in
            session.inbox.withLock { $0 = inbox }
            return session
        }
        return (setup, session)
    }

    func startDownload(_ request: URLRequest, description: String) {
        state.withLock { $0.started.append(Started(request: request, description: description)) }
    }

    func runningDownloads() async -> [String] {
        state.withLock { state in
            state.listings += 1
            return state.started.indices.filter { !state.done.contains($0) }.map { state.started[$0].description }
        }
    }

    /// How many times the pipeline asked for the running downloads (a round trip to the
    /// system's download service each).
    var listings: Int { state.withLock { $0.listings } }

    func cancelDownloads(withDescriptions descriptions: Set<String>) {
        state.withLock { state in
            state.done.formUnion(state.started.indices.filter { descriptions.contains(state.started[$0].description) })
        }
    }

    func cancelAllDownloads() {
        state.withLock { $0.done.formUnion($0.started.indices) }
    }

    /// Every request handed over, in order.
    var started: [Started] { state.withLock { $0.started } }

    /// Downloads `started` from the network as the system would and hands the file to the inbox,
    /// with `transform` applied to the body and header fields first (a cut, a lie).
    @discardableResult
    func finish(
        _ started: Started,
        transform: (inout Data, inout [String: String]) -> Void = { _, _ in }
    ) async throws -> Bool {
        let (body, response) = try await URLSession.shared.data(for: started.request)
        let http = try #require(response as? HTTPURLResponse)
        var data = body
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        transform(&data, &headers)
        let url = try #require(http.url)
        let final = try #require(HTTPURLResponse(url: url, statusCode: http.statusCode, httpVersion: "HTTP/1.1", headerFields: headers))
        return deliver(data, response: final, for: started)
    }

    /// Hands `data` to the inbox as the file the session downloaded, then deletes the file.
    func deliver(_ data: Data, response: URLResponse, for started: Started) -> Bool {
        let location = FileManager.default.temporaryDirectory.appendingPathComponent("CFNetworkDownload_\(UUID().uuidString).tmp")
        try? data.write(to: location)
        defer { try? FileManager.default.removeItem(at: location) }
        state.withLock { state in
            // The live task with that description (the last started).
            if let index = state.started.indices.last(where: { !state.done.contains($0) && state.started[$0].description == started.description }) {
                state.done.insert(index)
            }
        }
        guard let inbox = inbox.withLock({ $0 }) else { return false }
        return inbox.didFinishDownload(description: started.description, request: started.request, response: response, location: location)
    }
}
