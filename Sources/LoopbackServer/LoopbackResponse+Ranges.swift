import Foundation

/// Byte ranges (RFC 9110 14): what a route with ``LoopbackResponse/honorsRanges`` answers to a
/// `Range` request.
///
/// ```swift
/// var response = LoopbackResponse.ok(png, contentType: "image/png", headers: ["ETag": "\"v1\"", "Accept-Ranges": "bytes"])
/// response.honorsRanges = true
/// server.serve("/a.png", response)   // Range: bytes=100- -> 206, Content-Range: bytes 100-.../...
/// ```
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
extension LoopbackResponse {
    /// This response as the answer to `request`: unchanged unless it honours ranges and the
    /// request asks for one that `If-Range` allows; then a `206` with the range's bytes, or a
    /// `416` for a range starting past the end.
    func answeringRange(of request: RecordedRequest) -> LoopbackResponse {
        guard honorsRanges, status == 200, request.method == "GET",
              let range = request.header("Range").flatMap(Self.byteRange),
              ifRangeMatches(request.header("If-Range")) else { return self }
        var answer = self
        answer.headers = headers.filter { $0.key.lowercased() != "content-length" && $0.key.lowercased() != "content-range" }
        let length = body.count
        guard range.first < length else {
            answer.status = 416
            answer.headers["Content-Range"] = "bytes */\(length)"
            answer.body = Data()
            answer.truncatedAfter = nil
            return answer
        }
        let last = min(range.last ?? length - 1, length - 1)
        answer.status = 206
        answer.headers["Content-Range"] = "bytes \(range.first)-\(last)/\(length)"
        answer.body = body.subdata(in: body.startIndex + range.first ..< body.startIndex + last + 1)
        return answer
    }

    /// Whether an `If-Range` value (or its absence) lets the range apply: a strong `ETag` equal
    /// to this response's (strong) one, or a date equal to its `Last-Modified`.
    private func ifRangeMatches(_ value: String?) -> Bool {
        guard let value = value?.trimmingCharacters(in: .whitespaces) else { return true }
        if value.hasPrefix("\"") || value.hasPrefix("W/") {
            guard let etag = header("ETag"), !etag.hasPrefix("W/"), !value.hasPrefix("W/") else { return false }
            return etag == value
        }
        return header("Last-Modified") == value
    }

    /// One range of `bytes=first-` or `bytes=first-last`; `nil` for anything else (the server
    /// then ignores the header, as RFC 9110 14.2 allows).
    static func byteRange(_ value: String) -> (first: Int, last: Int?)? {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("bytes="), !text.contains(",") else { return nil }
        let bounds = text.dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), first >= 0 else { return nil }
        if bounds[1].isEmpty { return (first, nil) }
        guard let last = Int(bounds[1]), last >= first else { return nil }
        return (first, last)
    }
}
