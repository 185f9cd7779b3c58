import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ResponseValidator.Transfer {
    /// How a response's body ended, from its head: whole when the transfer had its own end
    /// (RFC 9112 6.3), that is a `Content-Length` the body reached (with a `Content-Encoding`,
    /// the session checked the encoded length: a short body is a transport error) or a chunked
    /// body (a missing last chunk is a transport error); a body delimited by the connection's
    /// close may have been cut. A loader's non-HTTP response (a custom scheme) is whole: the
    /// loader returned its body.
    ///
    /// Where the session hides these fields (HTTP/2 and HTTP/3 carry neither), the body counts
    /// as possibly cut, which keeps the container checks: the stricter answer.
    init(_ response: URLResponse, received: Int) {
        guard let http = response as? HTTPURLResponse else {
            self = .complete
            return
        }
        let headers = HTTPHeaders(http)
        if let encoding = headers["Transfer-Encoding"], encoding.lowercased().contains("chunked") {
            self = .complete
        } else if let length = headers["Content-Length"].flatMap(Self.contentLength) {
            self = headers["Content-Encoding"] != nil || received >= length ? .complete : .mayBeCut
        } else {
            self = .mayBeCut
        }
    }

    /// A `Content-Length` value (RFC 9110 8.6: `1*DIGIT`), or `nil` for anything else: a sign
    /// (`Int("-5")` is -5, which every body "reaches"), a list, a number past `Int`. A malformed
    /// length vouches for nothing.
    static func contentLength(_ value: String) -> Int? {
        let digits = value.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(digits)
    }
}
