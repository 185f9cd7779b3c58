import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What core keeps of a background download, in two small JSON documents with a version each:
/// the ``Ticket`` that travels with the task (`URLSessionTask.taskDescription`, which the system
/// keeps across relaunches), and the record written next to a finished download's bytes in the
/// staging folder (``BackgroundDownloadStaging``), everything adoption needs to validate and
/// store them as a download (status, header fields, the request's header fields, the times).
package struct BackgroundDownloadRecord: Codable, Sendable, Equatable {
    /// The format this code writes and reads.
    package static let currentVersion = 1

    /// Why a ticket or record was refused: bad input never becomes an entry.
    package enum FormatError: Error, Equatable, CustomStringConvertible {
        /// Written by another version of the format.
        case unsupportedVersion(Int)
        /// Not a document of this format: what was wrong with it.
        case malformed(String)

        package var description: String {
            switch self {
            case .unsupportedVersion(let version):
                "background download record version \(version) is not supported (this code reads \(BackgroundDownloadRecord.currentVersion))"
            case .malformed(let reason):
                "malformed background download record: \(reason)"
            }
        }
    }

    /// What the pipeline hands the session with each download, and gets back when it finishes.
    package struct Ticket: Codable, Sendable, Equatable {
        package var version: Int = BackgroundDownloadRecord.currentVersion
        /// The resolved cache key the bytes are stored under.
        package var cacheKey: String
        /// When the pipeline handed the request to the session. The system may start the
        /// download hours later: adoption bounds it by the response's `Date`
        /// (``BackgroundDownloadRecord/requestTime``).
        package var requestTime: Date
        /// The request's header fields as the pipeline keys and stores it: before the request
        /// modifier (a token it adds neither keys the entry nor keeps it off disk), with `Accept`.
        package var headers: [String: String]
        /// The request's ``ImageRequest/Options`` (`rawValue`): a `.pinOnDisk` prefetch is
        /// adopted pinned. Absent: none.
        package var options: Int?

        package init(cacheKey: String, requestTime: Date, headers: [String: String] = [:], options: ImageRequest.Options = []) {
            self.cacheKey = cacheKey
            self.requestTime = requestTime
            self.headers = headers
            self.options = options.isEmpty ? nil : options.rawValue
        }

        /// The task description that carries it.
        package var encoded: String {
            // Encoding plain strings and dates cannot fail.
            String(decoding: (try? BackgroundDownloadRecord.encoder.encode(self)) ?? Data(), as: UTF8.self)
        }

        /// The ticket in a task description.
        ///
        /// - Throws: ``FormatError``.
        package init(decoding description: String) throws {
            self = try BackgroundDownloadRecord.decode(Ticket.self, from: Data(description.utf8))
        }
    }

    package var version: Int = BackgroundDownloadRecord.currentVersion
    package var ticket: Ticket
    /// The request (its header fields as the pipeline keys and stores it: `Vary` matching, the
    /// disk store policy).
    package var url: URL
    package var requestHeaders: [String: String]
    /// Where the session's redirects led, when they led elsewhere.
    package var finalURL: URL?
    /// The final response (after redirects).
    package var statusCode: Int
    package var responseHeaders: [String: String]
    /// When the download finished and was staged.
    package var responseTime: Date

    package init(
        ticket: Ticket, url: URL, requestHeaders: [String: String], finalURL: URL? = nil,
        statusCode: Int, responseHeaders: [String: String], responseTime: Date
    ) {
        self.ticket = ticket
        self.url = url
        self.finalURL = finalURL == url ? nil : finalURL
        self.requestHeaders = requestHeaders
        self.statusCode = statusCode
        self.responseHeaders = responseHeaders
        self.responseTime = responseTime
    }

    /// The record of a finished task: its ticket, the request it sent and the response it got.
    ///
    /// - Throws: ``FormatError`` for a task the pipeline did not start (no ticket) or a response
    ///   that is not HTTP.
    package init(description: String?, request: URLRequest?, response: URLResponse?, responseTime: Date) throws {
        guard let description else { throw FormatError.malformed("the task has no description") }
        let ticket = try Ticket(decoding: description)
        guard let http = response as? HTTPURLResponse else { throw FormatError.malformed("the response is not HTTP") }
        guard let url = request?.url ?? http.url else { throw FormatError.malformed("the task has no URL") }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        self.init(
            ticket: ticket, url: url, requestHeaders: ticket.headers, finalURL: http.url,
            statusCode: http.statusCode, responseHeaders: headers, responseTime: responseTime
        )
    }

    /// The request time of RFC 9111's age calculation: the download's start, which the session
    /// does not report. The hand-over time is its lower bound and the response's `Date` (when
    /// the server answered, so after the start) its best estimate, within the response time: a
    /// download handed over at 22:00 and made at 04:00 is not adopted six hours old.
    var requestTime: Date {
        guard let date = response?.value(forHTTPHeaderField: "Date").flatMap({ HTTPDate.parse($0) }) else {
            return ticket.requestTime
        }
        return max(ticket.requestTime, min(date, responseTime))
    }

    /// The response as the pipeline's validation reads it.
    package var response: HTTPURLResponse? {
        HTTPURLResponse(url: finalURL ?? url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: responseHeaders)
    }

    /// The redirects the response came through, as the pipeline's redirect rule reads them. The
    /// session does not report its hops, so a download that ended elsewhere counts as one
    /// temporary redirect without freshness: stored stale, revalidated before it is served.
    var redirects: [HTTPURLResponse] {
        guard let finalURL else { return [] }
        return HTTPURLResponse(url: url, statusCode: 302, httpVersion: "HTTP/1.1", headerFields: ["Location": finalURL.absoluteString]).map { [$0] } ?? []
    }

    /// The request as it was sent, under the ticket's cache key.
    var request: ImageRequest {
        var urlRequest = URLRequest(url: url)
        for (name, value) in requestHeaders { urlRequest.setValue(value, forHTTPHeaderField: name) }
        var request = ImageRequest(
            urlRequest: urlRequest, cacheKey: ticket.cacheKey, options: ImageRequest.Options(rawValue: ticket.options ?? 0)
        )
        request.cacheDirectives = RequestCacheDirectives(urlRequest)
        return request
    }

    /// The record's JSON.
    package func encoded() -> Data {
        (try? Self.encoder.encode(self)) ?? Data()
    }

    /// The record in `data`.
    ///
    /// - Throws: ``FormatError``.
    package init(decoding data: Data) throws {
        self = try Self.decode(Self.self, from: data)
    }

    /// The version field alone, read before the rest.
    private struct Versioned: Decodable { var version: Int }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// Reads the version first, so a later format is refused by version, not as malformed.
    private static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let found: Int
        do {
            found = try decoder.decode(Versioned.self, from: data).version
        } catch {
            throw FormatError.malformed("no version (\(error))")
        }
        guard found == currentVersion else { throw FormatError.unsupportedVersion(found) }
        do {
            return try decoder.decode(type, from: data)
        } catch {
            throw FormatError.malformed("\(error)")
        }
    }
}
