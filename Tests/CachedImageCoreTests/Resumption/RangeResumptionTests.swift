import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import CachedImageCore

/// The HTTP rules of resuming a download, on their own: which responses may be resumed, what
/// the resuming request carries, and what each answer means for the kept bytes.
@Suite("Range resumption rules (RFC 9110 If-Range, Range, Content-Range)")
struct RangeResumptionTests {
    static let date = "Thu, 26 Nov 2026 10:00:00 GMT"
    static let earlier = "Thu, 26 Nov 2026 09:00:00 GMT"

    static func validator(_ fields: [String: String], status: Int = 200) -> String? {
        RangeResumption.validator(status: status, headers: HTTPHeaders(fields))
    }

    static func partial(_ count: Int = 100, validator: String = "\"v1\"", total: Int? = 300) -> PartialDownload {
        PartialDownload(url: URL(string: "https://example.com/a.png")!, validator: validator, data: Data(count: count), totalLength: total)
    }

    static func interpret(_ status: Int, _ fields: [String: String], _ partial: PartialDownload = partial()) -> RangeResumption.Answer {
        RangeResumption.interpret(status: status, headers: HTTPHeaders(fields), resuming: partial)
    }

    // MARK: Which responses may be resumed

    @Test("a strong ETag with Accept-Ranges: bytes is the validator")
    func strongETag() {
        #expect(Self.validator(["ETag": "\"v1\"", "Accept-Ranges": "bytes"]) == "\"v1\"")
        #expect(Self.validator(["etag": "\"v1\"", "accept-ranges": "none, Bytes"]) == "\"v1\"")
    }

    @Test("no resumption without Accept-Ranges: bytes")
    func acceptRanges() {
        #expect(Self.validator(["ETag": "\"v1\""]) == nil)
        #expect(Self.validator(["ETag": "\"v1\"", "Accept-Ranges": "none"]) == nil)
        #expect(Self.validator(["ETag": "\"v1\"", "Accept-Ranges": "bytesx"]) == nil)
    }

    @Test("a weak or malformed ETag forbids resumption, even with a Last-Modified")
    func weakETag() {
        let dated = ["Accept-Ranges": "bytes", "Last-Modified": Self.earlier, "Date": Self.date]
        #expect(Self.validator(dated.merging(["ETag": "W/\"v1\""]) { $1 }) == nil)
        #expect(Self.validator(dated.merging(["ETag": "v1"]) { $1 }) == nil)
        #expect(Self.validator(dated.merging(["ETag": "\"v\"1\""]) { $1 }) == nil)
    }

    @Test("a Last-Modified is a validator only when at least a second older than Date")
    func lastModified() {
        #expect(Self.validator(["Accept-Ranges": "bytes", "Last-Modified": Self.earlier, "Date": Self.date]) == Self.earlier)
        #expect(Self.validator(["Accept-Ranges": "bytes", "Last-Modified": Self.earlier]) == nil)
        #expect(Self.validator(["Accept-Ranges": "bytes", "Last-Modified": Self.date, "Date": Self.date]) == nil)
        #expect(Self.validator(["Accept-Ranges": "bytes", "Last-Modified": "yesterday", "Date": Self.date]) == nil)
    }

    @Test("an encoded body, or a status other than 200, is not resumed")
    func encodingAndStatus() {
        #expect(Self.validator(["ETag": "\"v1\"", "Accept-Ranges": "bytes", "Content-Encoding": "gzip"]) == nil)
        #expect(Self.validator(["ETag": "\"v1\"", "Accept-Ranges": "bytes", "Content-Encoding": "identity"]) == "\"v1\"")
        #expect(Self.validator(["ETag": "\"v1\"", "Accept-Ranges": "bytes"], status: 203) == nil)
        #expect(Self.validator(["ETag": "\"v1\"", "Accept-Ranges": "bytes"], status: 206) == nil)
    }

    // MARK: The request

    @Test("the resuming request asks for the rest, if the validator still holds")
    func requestFields() {
        #expect(RangeResumption.requestFields(resuming: Self.partial(1234)) == ["Range": "bytes=1234-", "If-Range": "\"v1\""])
    }

    // MARK: The answer

    @Test("a 206 continuing the kept bytes appends")
    func appends() {
        #expect(Self.interpret(206, ["Content-Range": "bytes 100-299/300", "ETag": "\"v1\"", "Content-Length": "200"]) == .append(total: 300))
        // No validator repeated, no total known before: taken at its word.
        #expect(Self.interpret(206, ["Content-Range": "bytes 100-299/300"], Self.partial(total: nil)) == .append(total: 300))
        #expect(Self.interpret(206, ["Content-Range": "bytes 100-299/300", "Last-Modified": Self.earlier], Self.partial(validator: Self.earlier)) == .append(total: 300))
    }

    @Test("a 206 that does not continue the kept bytes restarts from zero")
    func restarts() {
        let cases: [[String: String]] = [
            ["Content-Range": "bytes 0-299/300"],                         // another start
            ["Content-Range": "bytes 100-199/300"],                       // not to the end
            ["Content-Range": "bytes 100-299/*"],                         // unknown length
            ["Content-Range": "bytes 100-399/400"],                       // another length
            ["Content-Range": "bytes */300"],                             // unsatisfied
            ["Content-Range": "garbage"],
            [:],                                                          // none
            ["Content-Range": "bytes 100-299/300", "ETag": "\"v2\""],     // another validator
            ["Content-Range": "bytes 100-299/300", "ETag": "W/\"v1\""],
            ["Content-Range": "bytes 100-299/300", "Content-Length": "50"],
            ["Content-Range": "bytes 100-299/300", "Content-Encoding": "gzip"],
            ["Content-Range": "bytes 100-299/300", "Content-Type": "multipart/byteranges; boundary=x"],
        ]
        for fields in cases {
            #expect(Self.interpret(206, fields) == .restart, "\(fields)")
        }
        #expect(Self.interpret(206, ["Content-Range": "bytes 100-299/300", "Last-Modified": Self.date], Self.partial(validator: Self.earlier)) == .restart)
        #expect(Self.interpret(416, ["Content-Range": "bytes */300"]) == .restart)
    }

    @Test("a 200 replaces the kept bytes; other statuses leave them alone")
    func otherStatuses() {
        #expect(Self.interpret(200, ["ETag": "\"v2\""]) == .replaced)
        #expect(Self.interpret(503, [:]) == .unrelated)
        #expect(Self.interpret(404, [:]) == .unrelated)
        #expect(Self.interpret(304, [:]) == .unrelated)
    }

    @Test("Content-Range parsing")
    func contentRange() {
        #expect(RangeResumption.contentRange("bytes 0-0/1") == .init(first: 0, last: 0, complete: 1))
        #expect(RangeResumption.contentRange(" BYTES 5-9/* ") == .init(first: 5, last: 9, complete: nil))
        for bad in ["bytes 9-5/10", "bytes 5-10/10", "bytes -1-5/10", "bytes +1-5/10", "bytes 1 -5/10", "items 1-5/10", "bytes 1-5", "bytes 1-5/10/2", "bytes 1-/10"] {
            #expect(RangeResumption.contentRange(bad) == nil, "\(bad)")
        }
    }

    @Test("the assembled body is handled as a 200 of the whole length")
    func assembledHead() throws {
        let url = URL(string: "https://example.com/a.png")!
        let partial = try #require(HTTPURLResponse(url: url, statusCode: 206, httpVersion: "HTTP/1.1", headerFields: [
            "Content-Range": "bytes 100-299/300", "Content-Length": "200", "ETag": "\"v1\"", "Content-Type": "image/png",
            "Cache-Control": "max-age=60",
        ]))
        let head = try #require(RangeResumption.assembledHead(of: partial, total: 300))
        #expect(head.statusCode == 200)
        #expect(head.value(forHTTPHeaderField: "Content-Length") == "300")
        #expect(head.value(forHTTPHeaderField: "Content-Range") == nil)
        #expect(head.value(forHTTPHeaderField: "ETag") == "\"v1\"")
        #expect(head.value(forHTTPHeaderField: "Cache-Control") == "max-age=60")
        #expect(head.expectedContentLength == 300)
    }
}
