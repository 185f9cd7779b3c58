import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import Testing
@testable import CachedImageCore

/// A connection that really drops mid-body (FIN or RST, after a `Content-Length` head or in the
/// middle of a chunked body) fails at once with the typed truncation error, never with a
/// generic transport error and never at the request timeout.
@Suite("Reliability: a connection dropped mid-body fails at once, as a truncated response")
struct ConnectionDropTests {
    enum Framing: String, CaseIterable, Sendable {
        /// `Content-Length` announces the whole body.
        case contentLength
        /// `Transfer-Encoding: chunked`: the client does not know the length.
        case chunked
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var framing: Framing
        var ending: ConnectionDroppingServer.Ending
        var testDescription: String { "\(framing.rawValue), \(ending)" }
    }

    static let cases: [Case] = Framing.allCases.flatMap { framing in
        [ConnectionDroppingServer.Ending.close, .reset].map { Case(framing: framing, ending: $0) }
    }

    /// The response head and the first half of `png`'s body, framed as `framing` says.
    static func halfResponse(_ png: Data, framing: Framing) -> Data {
        let half = png.prefix(png.count / 2)
        switch framing {
        case .contentLength:
            let head = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: \(png.count)\r\n\r\n"
            return Data(head.utf8) + half
        case .chunked:
            // One chunk announcing the whole image, of which only half arrives.
            let head = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n"
            return Data(head.utf8) + Data((String(png.count, radix: 16) + "\r\n").utf8) + half
        }
    }

    /// No timing assertion: the request's timeout is an hour and the test's time limit a minute,
    /// so a failure that waited for the timer would fail the test by its time limit. The time
    /// each case takes (milliseconds) is in the test log (`swift test --filter ConnectionDropTests`).
    @Test("a dropped connection", .timeLimit(.minutes(1)), arguments: cases)
    func droppedConnection(_ dropped: Case) async throws {
        let png = ImageFixtures.png(width: 300, height: 200, seed: 9)
        let server = try ConnectionDroppingServer(response: Self.halfResponse(png, framing: dropped.framing), ending: dropped.ending)
        defer { server.shutdown() }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CachedImageDropTests-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pipeline = ImagePipeline.forTests(directory: directory, clock: ManualClock()) { _ in }
        let url = server.url("/dropped.png")
        var urlRequest = URLRequest(url: url)
        // A long timeout: the failure must come from the drop, not from the timer.
        urlRequest.timeoutInterval = 3600

        do {
            let response = try await pipeline.image(for: ImageRequest(urlRequest: urlRequest))
            Issue.record("expected a failure, got an image of \(response.image.pixelSize)")
        } catch let error as ImagePipeline.Error {
            guard case .truncatedResponse(let errorURL, let received, let expected) = error else {
                Issue.record("expected truncatedResponse, got \(error)")
                return
            }
            #expect(errorURL == url)
            #expect(error.isTransient)
            // A reset may discard bytes the client had not read yet: at most half arrived.
            #expect(received <= png.count / 2)
            #expect(expected == (dropped.framing == .contentLength ? png.count : nil))
        }
        #expect(server.requestCount == 1)
        ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: nil)
    }
}
