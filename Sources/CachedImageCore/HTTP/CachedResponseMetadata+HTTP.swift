import Foundation

/// RFC 9111 freshness and validation rules for a private cache.
///
/// All functions are pure: times are passed in (from the pipeline's `CacheClock`), nothing is
/// read from the system clock. Ages and lifetimes are never negative, never NaN/infinite, and
/// header-derived durations are clamped to 2^31 seconds, so hostile headers and skewed clocks
/// give "stale" at worst, never a crash.
extension CachedResponseMetadata {
    /// Metadata for a response with `statusCode` received between `requestTime` and
    /// `responseTime` for a request sent with `requestHeaders`, or `nil` when the response must
    /// not be stored or reused: `Cache-Control: no-store`, `Vary: *`, or a `Vary` naming a
    /// header the pipeline cannot see (``unobservableRequestHeaders``, i.e. `Cookie`).
    ///
    /// - `freshnessLifetime`: `0` for `no-cache` (or `Pragma: no-cache` without any
    ///   `Cache-Control`); else `max-age`; else `Expires - Date` (`Date` missing → the response
    ///   time; an invalid `Expires` such as `0` → `0`, already stale); else `nil`, meaning a
    ///   ``HeuristicFreshness`` applies when read, but only when the status is heuristically
    ///   cacheable or the response is `public` (RFC 9111 4.2.2); otherwise `0`.
    /// - `initialAge` (RFC 9111 4.2.3): `max(apparent_age, Age + response_delay)`, where
    ///   `apparent_age = max(0, responseTime - Date)`. A server `Date` in the future therefore
    ///   adds no age.
    /// - `lastModifiedAge`: `Date` (or the response time) minus a parseable `Last-Modified`.
    /// - `vary`: the `Vary` names with `requestHeaders`' values for them (RFC 9111 4.1). Pass
    ///   the headers as sent, after ``HTTPRequestDefaults/headers(applyingDefaultsTo:)``.
    /// - `staleIfError`, `staleWhileRevalidate`, `noCache`: from `Cache-Control` (RFC 5861).
    init?(
        headers: HTTPHeaders,
        statusCode: Int = 200,
        requestHeaders: HTTPHeaders = HTTPHeaders(),
        requestTime: Date,
        responseTime: Date
    ) {
        let cacheControl = CacheControl(headers["Cache-Control"])
        guard !cacheControl.noStore,
              let vary = Self.varyFields(responseHeaders: headers, requestHeaders: requestHeaders)
        else { return nil }
        let explicitLifetime = Self.explicitLifetime(headers: headers, cacheControl: cacheControl, responseTime: responseTime)
        let heuristicAllowed = HeuristicFreshness.isHeuristicallyCacheable(
            statusCode: statusCode, isPublic: cacheControl.isPublic
        )
        let lastModified = Self.nonEmpty(headers["Last-Modified"])
        self.init(
            contentType: Self.nonEmpty(headers["Content-Type"]),
            etag: Self.nonEmpty(headers["ETag"]),
            lastModified: lastModified,
            storedAt: responseTime,
            initialAge: Self.initialAge(headers: headers, requestTime: requestTime, responseTime: responseTime),
            freshnessLifetime: explicitLifetime ?? (heuristicAllowed ? nil : 0),
            mustRevalidate: cacheControl.mustRevalidate,
            isImmutable: cacheControl.isImmutable,
            noCache: Self.isNoCache(headers: headers, cacheControl: cacheControl),
            staleIfError: cacheControl.staleIfError,
            staleWhileRevalidate: cacheControl.staleWhileRevalidate,
            lastModifiedAge: Self.lastModifiedAge(lastModified: lastModified, headers: headers, responseTime: responseTime)
        )
        self.vary = vary
    }

    /// The age of the stored response at `now` (RFC 9111 4.2.3):
    /// `initialAge + (now - storedAt)`, where a clock that went backwards counts as no time.
    package func currentAge(at now: Date) -> TimeInterval {
        Self.sanitized(initialAge) + Self.sanitized(now.timeIntervalSince(storedAt))
    }

    /// Whether the response may be used at `now` without revalidation: its lifetime (or
    /// `heuristicLifetime` when the server gave none) is greater than its current age.
    /// A lifetime of `0` (`no-cache`, invalid `Expires`) is never fresh.
    ///
    /// The flat heuristic, kept for source compatibility; equivalent to
    /// `isFresh(at: now, heuristic: .fixed(heuristicLifetime))`.
    package func isFresh(at now: Date, heuristicLifetime: TimeInterval) -> Bool {
        isFresh(at: now, heuristic: .fixed(heuristicLifetime))
    }

    /// The freshness lifetime in seconds (RFC 9111 4.2.1): the explicit one, or `heuristic`'s
    /// lifetime for this response's ``lastModifiedAge`` when the server gave none.
    package func lifetime(heuristic: HeuristicFreshness) -> TimeInterval {
        if let freshnessLifetime { return Self.sanitized(freshnessLifetime) }
        return heuristic.lifetime(lastModifiedAge: lastModifiedAge)
    }

    /// Whether the response may be used at `now` without revalidation (RFC 9111 4.2): its
    /// ``lifetime(heuristic:)`` is greater than its current age. A lifetime of `0`
    /// (`no-cache`, invalid `Expires`, a 302 without freshness) is never fresh.
    package func isFresh(at now: Date, heuristic: HeuristicFreshness) -> Bool {
        lifetime(heuristic: heuristic) > currentAge(at: now)
    }

    /// How long the response has been stale at `now`, in seconds: `currentAge - lifetime`,
    /// `0` while fresh.
    package func staleness(at now: Date, heuristic: HeuristicFreshness) -> TimeInterval {
        Self.sanitized(currentAge(at: now) - lifetime(heuristic: heuristic))
    }

    /// Whether a conditional request can revalidate the response (it has an ETag or a
    /// Last-Modified date).
    var hasValidators: Bool {
        etag != nil || lastModified != nil
    }

    /// The headers of a conditional request for this response: `If-None-Match` from the ETag
    /// and `If-Modified-Since` from Last-Modified (verbatim), each only when known.
    func conditionalHeaders() -> [String: String] {
        var headers: [String: String] = [:]
        if let etag { headers["If-None-Match"] = etag }
        if let lastModified { headers["If-Modified-Since"] = lastModified }
        return headers
    }

    /// The metadata after a `304 Not Modified` with `headers` (RFC 9111 4.3.4), or `nil`
    /// when the 304 says `no-store` (or `Vary: *` / `Vary: Cookie`): the caller should then
    /// delete the entry. Check ``isSelected(byNotModified:)`` first (or use
    /// ``applyingNotModified(_:requestHeaders:requestTime:responseTime:)``).
    ///
    /// Header fields present in the 304 replace the stored ones; absent ones keep the stored
    /// values: `ETag` and `Last-Modified` are replaced only when sent; `Cache-Control` (when
    /// sent) replaces `mustRevalidate`, `isImmutable`, `noCache`, `staleIfError` and
    /// `staleWhileRevalidate`; an explicit lifetime in the 304 (`max-age`, `no-cache`,
    /// `Expires`, or `Pragma: no-cache` without `Cache-Control`) replaces the stored lifetime,
    /// otherwise the stored lifetime is kept. `contentType` is kept. `storedAt` becomes
    /// `responseTime` and `initialAge` is recomputed from the 304's `Date` and `Age`, so a 304
    /// restarts the freshness period; `lastModifiedAge` is recomputed from the (new or stored)
    /// `Last-Modified` and the 304's `Date`. A `Vary` in the 304 replaces ``vary`` when
    /// `requestHeaders` is given.
    ///
    /// Only derived values are stored, not raw headers, so when the 304 omits explicit
    /// freshness the stored lifetime is reused as a duration even if it came from an `Expires`
    /// date; servers should (RFC 9110 15.4.5) resend `Cache-Control`/`Expires` in a 304.
    func revalidated(
        with headers: HTTPHeaders,
        requestHeaders: HTTPHeaders? = nil,
        requestTime: Date,
        responseTime: Date
    ) -> CachedResponseMetadata? {
        let cacheControlValue = headers["Cache-Control"]
        let cacheControl = CacheControl(cacheControlValue)
        guard !cacheControl.noStore else { return nil }
        var updated = self
        if headers["Vary"] != nil, let requestHeaders {
            guard let vary = Self.varyFields(responseHeaders: headers, requestHeaders: requestHeaders) else { return nil }
            updated.vary = vary
        }
        if let etag = Self.nonEmpty(headers["ETag"]) { updated.etag = etag }
        if let lastModified = Self.nonEmpty(headers["Last-Modified"]) { updated.lastModified = lastModified }
        if cacheControlValue != nil {
            updated.mustRevalidate = cacheControl.mustRevalidate
            updated.isImmutable = cacheControl.isImmutable
            updated.staleIfError = cacheControl.staleIfError
            updated.staleWhileRevalidate = cacheControl.staleWhileRevalidate
        }
        if cacheControlValue != nil || headers["Pragma"] != nil {
            updated.noCache = Self.isNoCache(headers: headers, cacheControl: cacheControl)
        }
        if let lifetime = Self.explicitLifetime(headers: headers, cacheControl: cacheControl, responseTime: responseTime) {
            updated.freshnessLifetime = lifetime
        }
        updated.response = response?.updated(byNotModified: headers.fields)
        updated.storedAt = responseTime
        updated.initialAge = Self.initialAge(headers: headers, requestTime: requestTime, responseTime: responseTime)
        updated.lastModifiedAge = Self.lastModifiedAge(
            lastModified: updated.lastModified, headers: headers, responseTime: responseTime
        )
        return updated
    }

    // MARK: - Helpers

    /// The lifetime the headers state explicitly, or `nil` when they say nothing.
    static func explicitLifetime(
        headers: HTTPHeaders, cacheControl: CacheControl, responseTime: Date
    ) -> TimeInterval? {
        if isNoCache(headers: headers, cacheControl: cacheControl) { return 0 }
        if let maxAge = cacheControl.maxAge { return maxAge }
        if let expiresValue = headers["Expires"] {
            guard let expires = HTTPDate.parse(expiresValue, strict: true) else { return 0 } // Invalid: stale.
            let date = headers["Date"].flatMap { HTTPDate.parse($0) } ?? responseTime
            return sanitized(expires.timeIntervalSince(date))
        }
        return nil
    }

    /// `no-cache`, or `Pragma: no-cache` without `Cache-Control` (RFC 9111 5.4).
    private static func isNoCache(headers: HTTPHeaders, cacheControl: CacheControl) -> Bool {
        if cacheControl.noCache { return true }
        guard headers["Cache-Control"] == nil, let pragma = headers["Pragma"] else { return false }
        return pragma.lowercased().split(separator: ",").contains {
            $0.trimmingCharacters(in: .whitespaces) == "no-cache"
        }
    }

    /// `Date` (or `responseTime`) minus `lastModified`, or `nil` when it does not parse.
    private static func lastModifiedAge(lastModified: String?, headers: HTTPHeaders, responseTime: Date) -> TimeInterval? {
        guard let lastModified, let modified = HTTPDate.parse(lastModified) else { return nil }
        let date = headers["Date"].flatMap { HTTPDate.parse($0) } ?? responseTime
        return sanitized(date.timeIntervalSince(modified))
    }

    /// RFC 9111 4.2.3 corrected initial age.
    static func initialAge(headers: HTTPHeaders, requestTime: Date, responseTime: Date) -> TimeInterval {
        let date = headers["Date"].flatMap { HTTPDate.parse($0) } ?? responseTime
        let apparentAge = sanitized(responseTime.timeIntervalSince(date))
        let responseDelay = sanitized(responseTime.timeIntervalSince(requestTime))
        let ageValue = headers["Age"].flatMap(firstDeltaSeconds) ?? 0
        let correctedAgeValue = ageValue + responseDelay
        return max(apparentAge, correctedAgeValue)
    }

    /// The first value of a possibly combined `Age` field (`"10, 20"` → 10); `nil` if invalid.
    private static func firstDeltaSeconds(_ value: String) -> TimeInterval? {
        let first = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return CacheControl.deltaSeconds(first.trimmingCharacters(in: .whitespaces), allowingFraction: false)
    }

    /// Clamps a duration to `0...2^31` seconds; NaN becomes 0.
    static func sanitized(_ seconds: TimeInterval) -> TimeInterval {
        guard !seconds.isNaN else { return 0 }
        return min(max(seconds, 0), CacheControl.maximumDeltaSeconds)
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
