import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP rules of resuming a download that stopped before its end (RFC 9110 13.1.5 `If-Range`,
/// 14.2 `Range`, 14.4 `Content-Range`, 15.3.7 `206`, 15.5.17 `416`): whether a response may be
/// resumed, what the resuming request carries, and what its answer means.
///
/// A response may be resumed when the server said it serves byte ranges (`Accept-Ranges: bytes`),
/// its body travelled as is (no `Content-Encoding`: a range counts encoded bytes, the loader hands
/// over decoded ones), and it carries a strong validator for `If-Range`: an `ETag` that is not
/// weak, or, without any `ETag`, a `Last-Modified` at least one second before the response's
/// `Date` (RFC 9110 8.8.2.2; a date without `Date` is weak). The resuming request asks for
/// `Range: bytes=N-` with `If-Range: <validator>`, so a server whose representation changed
/// answers `200` with the whole new body instead of a range of it.
enum RangeResumption {
    /// What the answer to a resuming request means for the bytes kept.
    enum Answer: Sendable, Equatable {
        /// `206` continuing the kept bytes exactly, up to the end of a body of `total` bytes.
        case append(total: Int)
        /// `200`: the whole representation (the range was ignored, or `If-Range` did not match);
        /// the kept bytes are obsolete and this body is used as any other.
        case replaced
        /// `416`, or a `206` that does not continue the kept bytes (another range, an unreadable
        /// or missing `Content-Range`, another validator, an encoded or multipart body): the kept
        /// bytes are dropped and the resource is asked for again, without a range.
        case restart
        /// Any other status (a `5xx`, a `404`): not an answer about the range. The response is
        /// handled as usual and the kept bytes stay for a later attempt.
        case unrelated
    }

    /// A `Content-Range` of satisfied bytes: `first` through `last` (inclusive) of a body of
    /// `complete` bytes, `nil` when the server wrote `*` (length unknown).
    struct ContentRange: Sendable, Equatable {
        var first: Int
        var last: Int
        var complete: Int?
    }

    // MARK: Resumable responses

    /// The `If-Range` validator a response with `status` and `headers` may be resumed with, or
    /// `nil` when it may not be resumed (see the type's description).
    static func validator(status: Int, headers: HTTPHeaders) -> String? {
        guard status == 200,
              acceptsByteRanges(headers["Accept-Ranges"]),
              isIdentityEncoded(headers["Content-Encoding"]) else { return nil }
        if let etag = headers["ETag"] {
            // A weak tag may not be sent in `If-Range`, and a client that has a tag may not send
            // a date instead: no resumption at all.
            return isStrongEntityTag(etag) ? etag : nil
        }
        guard let text = headers["Last-Modified"],
              let lastModified = HTTPDate.parse(text),
              let date = headers["Date"].flatMap({ HTTPDate.parse($0) }),
              lastModified.addingTimeInterval(1) <= date else { return nil }
        return text
    }

    /// Whether an `Accept-Ranges` value lists the `bytes` unit (a comma-separated list of units).
    static func acceptsByteRanges(_ value: String?) -> Bool {
        guard let value else { return false }
        return value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "bytes" }
    }

    /// Whether a `Content-Encoding` value leaves the bytes as they are (absent or `identity`).
    private static func isIdentityEncoded(_ value: String?) -> Bool {
        guard let value else { return true }
        let codings = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return codings.allSatisfy { $0 == "identity" || $0.isEmpty }
    }

    /// Whether `tag` is a strong entity tag: `"opaque"` with no `W/` prefix (RFC 9110 8.8.3).
    static func isStrongEntityTag(_ tag: String) -> Bool {
        let bytes = Array(tag.utf8)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else { return false }
        // etagc: %x21 / %x23-7E / obs-text; no inner quote.
        return bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || ($0 >= 0x23 && $0 != 0x7F) }
    }

    // MARK: The resuming request

    /// The header fields that ask for the rest of `partial`.
    static func requestFields(resuming partial: PartialDownload) -> [String: String] {
        ["Range": "bytes=\(partial.data.count)-", "If-Range": partial.validator]
    }

    // MARK: The answer

    /// What a response with `status` and `headers` to a request that resumed `partial` means.
    static func interpret(status: Int, headers: HTTPHeaders, resuming partial: PartialDownload) -> Answer {
        switch status {
        case 200:
            return .replaced
        case 416:
            return .restart
        case 206:
            guard let range = headers["Content-Range"].flatMap(contentRange),
                  range.first == partial.data.count,
                  let complete = range.complete,
                  range.last == complete - 1,
                  partial.totalLength.map({ $0 == complete }) ?? true,
                  headers["Content-Length"].flatMap(ResponseValidator.Transfer.contentLength).map({ $0 == complete - range.first }) ?? true,
                  isIdentityEncoded(headers["Content-Encoding"]),
                  !(headers["Content-Type"]?.lowercased().hasPrefix("multipart/") ?? false),
                  isSameValidator(headers, as: partial.validator) else { return .restart }
            return .append(total: complete)
        default:
            return .unrelated
        }
    }

    /// Whether the validator a `206` names (it repeats the `ETag` and `Last-Modified` a `200`
    /// would carry, RFC 9110 15.3.7) is the one the kept bytes were sent with. A `206` that names
    /// none is taken at its word: the server evaluated `If-Range` itself.
    private static func isSameValidator(_ headers: HTTPHeaders, as validator: String) -> Bool {
        if isStrongEntityTag(validator) {
            return headers["ETag"].map { $0 == validator } ?? true
        }
        if let etag = headers["ETag"], !isStrongEntityTag(etag) { return false }
        return headers["Last-Modified"].map { $0 == validator } ?? true
    }

    /// Parses `bytes first-last/complete` (or `bytes first-last/*`); `nil` for anything else,
    /// including an unsatisfied range (`bytes */complete`), a range ending before it starts or
    /// past the complete length, and numbers with signs or spaces inside.
    static func contentRange(_ value: String) -> ContentRange? {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = number(bounds[0]), let last = number(bounds[1]), first <= last else { return nil }
        if halves[1] == "*" { return ContentRange(first: first, last: last, complete: nil) }
        guard let complete = number(halves[1]), last < complete else { return nil }
        return ContentRange(first: first, last: last, complete: complete)
    }

    private static func number(_ digits: Substring) -> Int? {
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(digits)
    }

    /// The response the assembled body is handled as: the `206`'s head (its fields describe the
    /// current representation, RFC 9111 3.4) as a `200` of `total` bytes, without `Content-Range`.
    static func assembledHead(of response: HTTPURLResponse, total: Int) -> HTTPURLResponse? {
        var fields: [String: String] = [:]
        for (name, value) in HTTPHeaders(response).fields {
            let lowered = name.lowercased()
            if lowered == "content-range" || lowered == "content-length" { continue }
            fields[name] = value
        }
        fields["Content-Length"] = String(total)
        guard let url = response.url else { return nil }
        return HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields)
    }
}
