import Foundation

/// The directives of a `Cache-Control` header that matter to a private client cache: the
/// response directives (RFC 9111 5.2.2) and, for a request's own header, the request
/// directives (5.2.1; see ``RequestCacheDirectives``).
///
/// Parsing never fails: names are case-insensitive, whitespace is tolerated, values may be
/// tokens or quoted strings (with `\` escapes; a quoted string may contain commas), and unknown
/// directives or stray garbage are ignored.
///
/// Rules for odd input:
/// - Duplicates: the **first** occurrence of a directive with a value wins (RFC 9111 4.2.1);
///   flag directives are simply set.
/// - `max-age` / `s-maxage` with a missing or invalid value (not `1*DIGIT`) count as `0`, so
///   the response is stale rather than fresh for an unintended time (RFC 9111 4.2.1 advises
///   treating invalid freshness information as stale).
/// - `stale-while-revalidate` / `stale-if-error` with an invalid value are ignored (`nil`):
///   they only ever extend use of a stale response.
/// - Values above 2^31 seconds are clamped to 2^31 (RFC 9111 1.2.2).
/// - `no-cache` and `no-cache="field, list"` both set ``noCache`` (the field list form is
///   treated as the unqualified one, the conservative choice).
struct CacheControl: Sendable, Hashable {
    /// The largest delta-seconds value, 2^31 (RFC 9111 1.2.2).
    static let maximumDeltaSeconds: TimeInterval = 2_147_483_648

    /// `max-age`, in seconds.
    var maxAge: TimeInterval?
    /// `s-maxage`, in seconds. Parsed for completeness; a private cache ignores it.
    var sharedMaxAge: TimeInterval?
    /// `no-store`: the response must not be stored at all.
    var noStore = false
    /// `no-cache` (with or without a field list): stored, but revalidated before every use.
    var noCache = false
    /// `must-revalidate`: once stale, never served without successful revalidation.
    var mustRevalidate = false
    /// `proxy-revalidate`: `must-revalidate` for shared caches only.
    var proxyRevalidate = false
    /// `immutable` (RFC 8246): a fresh response will not change, so it is never revalidated.
    var isImmutable = false
    /// `private`.
    var isPrivate = false
    /// `public`.
    var isPublic = false
    /// `stale-while-revalidate` (RFC 5861), in seconds.
    var staleWhileRevalidate: TimeInterval?
    /// `stale-if-error` (RFC 5861), in seconds.
    var staleIfError: TimeInterval?

    // Request directives (RFC 9111 5.2.1); a response never sets them.

    /// `max-stale`, in seconds; `.infinity` when the directive has no value (any staleness).
    var maxStale: TimeInterval?
    /// `min-fresh`, in seconds.
    var minFresh: TimeInterval?
    /// `only-if-cached`.
    var onlyIfCached = false

    /// No directives.
    init() {}

    /// Parses a `Cache-Control` field value; `nil` gives no directives. Multiple field lines
    /// should be joined with `,` first (``HTTPHeaders`` does this).
    init(_ headerValue: String?) {
        guard let headerValue, !headerValue.isEmpty else { return }
        for (name, value) in Self.directives(in: Array(headerValue.utf8)) {
            apply(name: name, value: value)
        }
    }

    private mutating func apply(name: String, value: String?) {
        switch name {
        case "max-age":
            if maxAge == nil { maxAge = Self.deltaSeconds(value) ?? 0 }
        case "s-maxage":
            if sharedMaxAge == nil { sharedMaxAge = Self.deltaSeconds(value) ?? 0 }
        case "stale-while-revalidate":
            if staleWhileRevalidate == nil { staleWhileRevalidate = Self.deltaSeconds(value) }
        case "stale-if-error":
            if staleIfError == nil { staleIfError = Self.deltaSeconds(value) }
        case "max-stale":
            // Without a value: any staleness; with an invalid one: none (the safe reading).
            if maxStale == nil { maxStale = value == nil ? .infinity : Self.deltaSeconds(value) ?? 0 }
        case "min-fresh":
            if minFresh == nil { minFresh = Self.deltaSeconds(value) ?? 0 }
        case "only-if-cached": onlyIfCached = true
        case "no-store": noStore = true
        case "no-cache": noCache = true
        case "must-revalidate": mustRevalidate = true
        case "proxy-revalidate": proxyRevalidate = true
        case "immutable": isImmutable = true
        case "private": isPrivate = true
        case "public": isPublic = true
        default: break
        }
    }

    /// `1*DIGIT`, saturating at 2^31; `nil` for anything else.
    ///
    /// A decimal such as `3600.0` or `3600.5` counts as its integer part (`3600`), as Safari
    /// and Firefox read it: RFC 9111 1.2.2 allows only digits, but a server that writes a
    /// decimal means that many seconds, not "stale at once". The fraction must be digits too
    /// (`1.5x`, `.5` and `1..2` are invalid); a trailing `.` with no digits is accepted.
    ///
    /// `allowingFraction: false` is the strict grammar, for the `Age` field: a decimal `Age` is
    /// invalid and ignored (as Chrome does; the suite's `age-parse-float` requires it).
    static func deltaSeconds(_ text: String?, allowingFraction: Bool = true) -> TimeInterval? {
        guard let text, !text.isEmpty else { return nil }
        var value: Int64 = 0
        var digitCount = 0
        var inFraction = false
        for byte in text.utf8 {
            if allowingFraction, byte == UInt8(ascii: "."), !inFraction, digitCount > 0 {
                inFraction = true
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            if inFraction { continue }
            digitCount += 1
            value = min(value * 10 + Int64(byte - UInt8(ascii: "0")), Int64(maximumDeltaSeconds))
        }
        return TimeInterval(value)
    }

    // MARK: - Tokenizer

    /// Splits `a, b=1, c="x, y"` into `(name, value?)` pairs: names lowercased and trimmed,
    /// values unquoted and trimmed. Empty elements are skipped.
    private static func directives(in bytes: [UInt8]) -> [(String, String?)] {
        var result: [(String, String?)] = []
        var index = 0
        let comma = UInt8(ascii: ","), equals = UInt8(ascii: "="), quote = UInt8(ascii: "\"")
        while index < bytes.count {
            // Name: up to "=" or ",".
            let nameStart = index
            while index < bytes.count, bytes[index] != comma, bytes[index] != equals { index += 1 }
            let name = trimmedString(bytes[nameStart..<index]).lowercased()
            var value: String?
            if index < bytes.count, bytes[index] == equals {
                index += 1
                while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
                if index < bytes.count, bytes[index] == quote {
                    index += 1
                    var unquoted: [UInt8] = []
                    while index < bytes.count, bytes[index] != quote {
                        if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
                        unquoted.append(bytes[index])
                        index += 1
                    }
                    index += 1 // Closing quote (or past the end when unterminated).
                    value = trimmedString(unquoted[...])
                    // Anything between the closing quote and the next comma is garbage.
                    while index < bytes.count, bytes[index] != comma { index += 1 }
                } else {
                    let valueStart = index
                    while index < bytes.count, bytes[index] != comma { index += 1 }
                    value = trimmedString(bytes[valueStart..<index])
                }
            }
            index += 1 // Skip the comma.
            if !name.isEmpty { result.append((name, value)) }
        }
        return result
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
            || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
    }

    private static func trimmedString(_ slice: ArraySlice<UInt8>) -> String {
        var lower = slice.startIndex, upper = slice.endIndex
        while lower < upper, isWhitespace(slice[lower]) { lower += 1 }
        while upper > lower, isWhitespace(slice[upper - 1]) { upper -= 1 }
        return String(decoding: slice[lower..<upper], as: UTF8.self)
    }
}
