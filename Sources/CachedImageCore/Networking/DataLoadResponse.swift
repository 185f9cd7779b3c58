import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What ``DataLoading/load(_:limits:progress:)`` returns: the body, the final response and every
/// redirect the request followed on the way, in order.
package struct DataLoadResponse: Sendable {
    /// The complete body of the final response.
    package var data: Data
    /// The final response (after any redirects).
    package var response: URLResponse
    /// The redirect responses (3xx, with their status, headers and URL) the request went
    /// through before `response`, first hop first. Empty when there was no redirect, or when the
    /// loader cannot observe redirects.
    package var redirects: [HTTPURLResponse]

    /// Creates a response.
    package init(data: Data, response: URLResponse, redirects: [HTTPURLResponse] = []) {
        self.data = data
        self.response = response
        self.redirects = redirects
    }
}
