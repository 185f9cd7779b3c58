import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import CachedImageCore

@Suite("Background download records")
struct BackgroundDownloadRecordTests {
    static let record = BackgroundDownloadRecord(
        ticket: .init(cacheKey: "https://example.com/a.png", requestTime: Date(timeIntervalSince1970: 1_000)),
        url: URL(string: "https://example.com/a.png")!, requestHeaders: ["Accept": "image/*"],
        finalURL: URL(string: "https://cdn.example.com/a.png"),
        statusCode: 200, responseHeaders: ["Cache-Control": "max-age=60"], responseTime: Date(timeIntervalSince1970: 1_010)
    )

    @Test("a record and a ticket read back as written")
    func roundTrip() throws {
        #expect(try BackgroundDownloadRecord(decoding: Self.record.encoded()) == Self.record)
        #expect(try BackgroundDownloadRecord.Ticket(decoding: Self.record.ticket.encoded) == Self.record.ticket)
    }

    @Test("another version, or anything else, is refused with a typed error")
    func badInput() throws {
        var json = try #require(String(data: Self.record.encoded(), encoding: .utf8))
        json = json.replacingOccurrences(of: "\"version\":1", with: "\"version\":2")
        #expect(throws: BackgroundDownloadRecord.FormatError.unsupportedVersion(2)) { try BackgroundDownloadRecord(decoding: Data(json.utf8)) }
        for bad in ["", "{}", "[1]", "{\"version\":1}", "not json"] {
            #expect {
                try BackgroundDownloadRecord(decoding: Data(bad.utf8))
            } throws: { error in
                guard case .malformed? = error as? BackgroundDownloadRecord.FormatError else { return false }
                return true
            }
        }
        #expect(throws: BackgroundDownloadRecord.FormatError.self) { try BackgroundDownloadRecord.Ticket(decoding: "{\"version\":1}") }
    }

    @Test("a task the pipeline did not start is not staged")
    func foreignTask() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("staging-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let inbox = BackgroundDownloadInbox(staging: BackgroundDownloadStaging(cacheDirectoryPath: directory.path), clock: SystemClock())
        let file = directory.appendingPathExtension("tmp")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let response = HTTPURLResponse(url: Self.record.url, statusCode: 200, httpVersion: nil, headerFields: [:])
        #expect(!inbox.didFinishDownload(description: nil, request: nil, response: response, location: file))
        #expect(!inbox.didFinishDownload(description: "another app's task", request: nil, response: response, location: file))
        #expect(inbox.staging.list() == BackgroundDownloadStaging.Listing())
    }

    @Test("a download that ended elsewhere is stored as after a temporary redirect: stale")
    func redirected() {
        #expect(Self.record.redirects.map(\.statusCode) == [302])
        #expect(Self.record.response?.url == URL(string: "https://cdn.example.com/a.png"))
    }

    @Test("the background session reports the tasks still running or waiting, and cancels those described")
    func sessionTasks() {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let url = URL(string: "http://127.0.0.1:9/a.png")!
        let waiting = session.downloadTask(with: url)
        waiting.taskDescription = "waiting"
        let cancelled = session.downloadTask(with: url)
        cancelled.taskDescription = "cancelled"
        cancelled.cancel()
        let foreign = session.downloadTask(with: url) // Not the pipeline's: no description.
        let tasks = [waiting, cancelled, foreign]
        #expect(BackgroundSessionTasks.liveDescriptions(of: tasks) == ["waiting"])
        #expect(BackgroundSessionTasks.tasks(tasks, describedBy: ["waiting", "other"]).map(\.taskDescription) == ["waiting"])
    }
}
