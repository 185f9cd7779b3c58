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
        } else if let length = headers["Content-Length"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            self = headers["Content-Encoding"] != nil || received >= length ? .complete : .mayBeCut
        } else {
            self = .mayBeCut
        }
    }
}
