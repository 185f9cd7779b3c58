// Fuzz target "http-fields": the response and request header fields the cache reads (Cache-Control,
// Expires, Date, Age, Last-Modified, ETag, Vary, Pragma, Retry-After) into the metadata it stores,
// and every freshness, staleness, revalidation and lifetime rule run on that metadata; and the
// rules of resuming a download (Accept-Ranges, Content-Range, Content-Encoding, the If-Range
// validator, what a 200, 206 or 416 to a resuming request means).
//
// The input is text: response header lines ("Name: value"), a blank line, then request header
// lines; the first byte picks the status code.
@testable import CachedImageCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

enum FuzzTarget {
    static let statuses = [200, 203, 204, 206, 300, 301, 304, 404, 410, 500, 503]
    static let requestTime = Date(timeIntervalSince1970: 1_700_000_000)
    static let instants: [TimeInterval] = [0, 1, 59, 86_400, 1e12, -1e12, .infinity, .nan]
    static let heuristics: [HeuristicFreshness] = [.default, .lastModifiedFraction(1e300, cap: .infinity)]

    static func fields(_ text: Substring) -> [String: String] {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        return fields
    }

    static func run(_ data: Data) {
        guard let first = data.first else { return }
        let status = statuses[Int(first) % statuses.count]
        let text = String(decoding: data.dropFirst(), as: UTF8.self)
        let blocks = text.components(separatedBy: "\n\n")
        let response = fields(Substring(blocks[0]))
        let request = blocks.count > 1 ? fields(Substring(blocks[1])) : [:]
        let responseHeaders = HTTPHeaders(response)
        let requestHeaders = HTTPHeaders(request)
        let responseTime = requestTime.addingTimeInterval(Double(first % 7))

        for value in response.values {
            _ = CacheControl(value)
            _ = CacheControl.deltaSeconds(value)
            _ = HTTPDate.parse(value, now: responseTime)
            _ = HTTPDate.parse(value, strict: true)
            _ = FailureCachePolicy.retryAfterSeconds(value, headers: responseHeaders, responseTime: responseTime)
            if let delay = ImagePipeline.RetryPolicy(maximumDelay: .infinity).delay(beforeRetry: 1, retryAfter: value, now: responseTime) {
                _ = ImagePipeline.RetryPolicy.nanoseconds(sleeping: delay)
            }
            _ = ResponseValidator.Transfer.contentLength(value)
            _ = VaryField.normalizedValue(value)
            _ = RangeResumption.contentRange(value)
            _ = RangeResumption.acceptsByteRanges(value)
            _ = RangeResumption.isStrongEntityTag(value)
        }
        resume(status: status, headers: responseHeaders, first: first)
        _ = CachedHTTPResponse(statusCode: status, headerFields: response)
        _ = FailureCachePolicy().failureLifetime(statusCode: status, headers: responseHeaders, requestTime: requestTime, responseTime: responseTime)
        _ = CachedResponseMetadata.varyFields(responseHeaders: responseHeaders, requestHeaders: requestHeaders)
        if let url = URL(string: "https://fuzz.invalid/image") {
            var urlRequest = URLRequest(url: url)
            for (name, value) in request {
                urlRequest.setValue(value, forHTTPHeaderField: name)
            }
            _ = RequestCacheDirectives(urlRequest)
        }
        guard let metadata = CachedResponseMetadata(
            headers: responseHeaders, statusCode: status, requestHeaders: requestHeaders,
            requestTime: requestTime, responseTime: responseTime
        ) else { return }
        exercise(metadata, responseTime: responseTime)
        // A 304 carrying the same fields, applied to what was stored.
        if let updated = metadata.revalidated(
            with: responseHeaders, requestHeaders: requestHeaders, requestTime: responseTime, responseTime: responseTime.addingTimeInterval(1)
        ) {
            exercise(updated, responseTime: responseTime)
        }
    }

    /// Whether a 200 with these fields may be resumed, and what they mean as the answer to a
    /// request resuming kept bytes of several lengths (with and without a known total).
    static func resume(status: Int, headers: HTTPHeaders, first: UInt8) {
        let validator = RangeResumption.validator(status: 200, headers: headers) ?? "\"v1\""
        guard let url = URL(string: "https://fuzz.invalid/image") else { return }
        for kept in [1, Int(first) + 1, 4_096] {
            for total in [nil, kept * 2, Int.max] {
                let partial = PartialDownload(url: url, validator: validator, data: Data(count: kept), totalLength: total)
                _ = RangeResumption.requestFields(resuming: partial)
                for answer in [status, 206, 416] {
                    _ = RangeResumption.interpret(status: answer, headers: headers, resuming: partial)
                }
            }
        }
    }

    static func exercise(_ metadata: CachedResponseMetadata, responseTime: Date) {
        _ = metadata.conditionalHeaders()
        for offset in instants {
            let now = responseTime.addingTimeInterval(offset)
            _ = metadata.currentAge(at: now)
            for heuristic in heuristics {
                _ = metadata.lifetime(heuristic: heuristic)
                _ = metadata.isFresh(at: now, heuristic: heuristic)
                _ = metadata.staleness(at: now, heuristic: heuristic)
                _ = MemoryCacheLifetime.forResponse(metadata, honorsHTTPFreshness: true, heuristic: heuristic, at: now)
            }
        }
    }

    static func seeds() -> [String: Data] {
        let seeds: [String: String] = [
            "cdn": "\u{0}Cache-Control: public, max-age=31536000, immutable\nDate: Sun, 06 Nov 1994 08:49:37 GMT\nETag: \"abc\"\nLast-Modified: Sat, 05 Nov 1994 08:49:37 GMT\nAge: 30",
            "expires": "\u{0}Expires: Thu, 01 Dec 1994 16:00:00 GMT\nDate: Sunday, 06-Nov-94 08:49:37 GMT\nPragma: no-cache",
            "asctime": "\u{0}Date: Sun Nov  6 08:49:37 1994\nCache-Control: no-cache, stale-while-revalidate=60, stale-if-error=86400",
            "vary": "\u{0}Cache-Control: max-age=60\nVary: Accept, Accept-Encoding , User-Agent\n\nAccept: image/webp,image/*\nAccept-Encoding: gzip, br",
            "retry": "\u{9}Retry-After: 120\nCache-Control: max-age=10, must-revalidate",
            "retry-date": "\u{9}Retry-After: Fri, 31 Dec 1999 23:59:59 GMT\nDate: Fri, 31 Dec 1999 23:58:59 GMT",
            "request": "\u{0}Cache-Control: s-maxage=5, private=\"Set-Cookie\", no-store\n\nCache-Control: max-stale=100, min-fresh=5, only-if-cached\nPragma: no-cache\nIf-None-Match: \"x\"",
            "resume-etag": "\u{4}Accept-Ranges: none, bytes\nETag: \"v1\"\nContent-Range: bytes 1-4095/4096\nContent-Length: 4095",
            "resume-date": "\u{0}Accept-Ranges: bytes\nLast-Modified: Sat, 05 Nov 1994 08:49:37 GMT\nDate: Sun, 06 Nov 1994 08:49:37 GMT\nContent-Range: bytes 1-*/*",
            "resume-huge": "\u{4}Content-Range: bytes 99999999999999999999-18446744073709551615/9223372036854775807\nContent-Encoding: identity, gzip\nContent-Type: multipart/byteranges",
            "huge": "\u{0}Cache-Control: max-age=99999999999999999999999999, stale-while-revalidate=1e400\nAge: 18446744073709551616\nExpires: 0",
        ]
        return seeds.mapValues { Data($0.utf8) }
    }
}
