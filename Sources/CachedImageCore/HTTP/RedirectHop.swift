import Foundation

/// One redirect (3xx) response on the way from the requested URL to the final response, as seen
/// by the session delegate's `willPerformHTTPRedirection`.
struct RedirectHop: Sendable, Equatable {
    /// The redirect's status code (301, 302, 303, 307, 308...).
    var statusCode: Int
    /// The redirect response's header fields.
    var headers: HTTPHeaders
    /// When the request that got this redirect was sent (the task's start for the first hop).
    var requestTime: Date
    /// When the redirect response arrived.
    var responseTime: Date

    init(statusCode: Int, headers: HTTPHeaders, requestTime: Date, responseTime: Date) {
        self.statusCode = statusCode
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
    }
}
