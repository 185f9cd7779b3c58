import Foundation

/// Negative caching: how long a URL whose request failed with an HTTP error status is
/// remembered as failed, so that a cell scrolling back in does not refetch a 404 every time.
/// An explicit retry (the caller asking again on purpose) always bypasses it.
///
/// Defaults: a `404`/`410` (gone, and likely to stay so) is remembered 60 s, any other 4xx or
/// 5xx 10 s; whatever the server says, at most ``maximum`` (10 minutes).
package struct FailureCachePolicy: Sendable, Hashable {
    /// Seconds to remember a `404 Not Found` or `410 Gone` that says nothing itself.
    package var notFound: TimeInterval
    /// Seconds to remember any other 4xx that says nothing itself.
    package var clientError: TimeInterval
    /// Seconds to remember a 5xx that says nothing itself.
    package var serverError: TimeInterval
    /// The upper bound of any failure lifetime, including server-given ones.
    package var maximum: TimeInterval

    /// A policy with the given lifetimes in seconds (defaults: 60, 10, 10, at most 600).
    package init(
        notFound: TimeInterval = 60,
        clientError: TimeInterval = 10,
        serverError: TimeInterval = 10,
        maximum: TimeInterval = 600
    ) {
        self.notFound = notFound
        self.clientError = clientError
        self.serverError = serverError
        self.maximum = maximum
    }

    /// The defaults.
    package static let `default` = FailureCachePolicy()
    /// Never remember failures.
    package static let disabled = FailureCachePolicy(notFound: 0, clientError: 0, serverError: 0, maximum: 0)

    /// How long, in seconds from `responseTime`, a failed response with `statusCode` and
    /// `headers` may be remembered as a failure (`0`: not at all).
    ///
    /// - `Cache-Control: no-store` → `0`.
    /// - Otherwise the larger of what the server states: `Retry-After` (delta-seconds, or an
    ///   HTTP-date relative to the response's `Date`, else `responseTime`), and the error
    ///   response's explicit freshness (`max-age`; `Expires - Date`; `no-cache` → `0`) minus its
    ///   `Age`.
    /// - When the server states neither: ``notFound`` for 404/410, ``serverError`` for 5xx,
    ///   ``clientError`` for other 4xx; `0` for a status below 400.
    /// - Always clamped to `0...maximum`.
    func failureLifetime(statusCode: Int, headers: HTTPHeaders, requestTime: Date, responseTime: Date) -> TimeInterval {
        guard statusCode >= 400 else { return 0 }
        let cacheControl = CacheControl(headers["Cache-Control"])
        if cacheControl.noStore { return 0 }
        var stated: TimeInterval?
        if let retryAfter = headers["Retry-After"].flatMap({ Self.retryAfterSeconds($0, headers: headers, responseTime: responseTime) }) {
            stated = retryAfter
        }
        if let lifetime = CachedResponseMetadata.explicitLifetime(headers: headers, cacheControl: cacheControl, responseTime: responseTime) {
            let age = CachedResponseMetadata.initialAge(headers: headers, requestTime: requestTime, responseTime: responseTime)
            stated = max(stated ?? 0, lifetime - age)
        }
        let seconds = stated ?? defaultLifetime(statusCode: statusCode)
        let bound = CachedResponseMetadata.sanitized(maximum)
        return min(CachedResponseMetadata.sanitized(seconds), bound)
    }

    /// ``failureLifetime(statusCode:headers:requestTime:responseTime:)`` for a response's
    /// header dictionary (`HTTPURLResponse.allHeaderFields` converted to strings).
    package func failureLifetime(statusCode: Int, headers: [String: String], requestTime: Date, responseTime: Date) -> TimeInterval {
        failureLifetime(statusCode: statusCode, headers: HTTPHeaders(headers), requestTime: requestTime, responseTime: responseTime)
    }

    private func defaultLifetime(statusCode: Int) -> TimeInterval {
        switch statusCode {
        case 404, 410: notFound
        case 500...: serverError
        default: clientError
        }
    }

    /// `Retry-After` (RFC 9110 10.2.3): delta-seconds, or an HTTP-date relative to `Date`.
    static func retryAfterSeconds(_ value: String, headers: HTTPHeaders, responseTime: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = CacheControl.deltaSeconds(trimmed) { return seconds }
        guard let date = HTTPDate.parse(trimmed, now: responseTime) else { return nil }
        let reference = headers["Date"].flatMap { HTTPDate.parse($0) } ?? responseTime
        return CachedResponseMetadata.sanitized(date.timeIntervalSince(reference))
    }
}
