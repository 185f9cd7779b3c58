import Foundation

/// Applying a `304 Not Modified` only to the stored response it selects (RFC 9111 4.3.4).
extension CachedResponseMetadata {
    /// What a `304 Not Modified` does to the stored entry.
    enum NotModifiedOutcome: Equatable {
        /// The 304 selects the entry: store this metadata for the same bytes.
        case updated(CachedResponseMetadata)
        /// The 304 selects the entry but forbids keeping it (`no-store`, `Vary: *`): delete it.
        case remove
        /// The 304's validators do not identify the stored bytes (the representation changed
        /// since): do not serve or update the entry; fetch the resource unconditionally.
        case refetch
    }

    /// Whether a 304 with `headers` selects this stored response (RFC 9111 4.3.4):
    /// - a strong `ETag` in the 304 must equal the stored `ETag` by strong comparison (both
    ///   strong, same opaque tag);
    /// - a weak `ETag` in the 304 must match the stored one by weak comparison (RFC 9110
    ///   8.8.3.2); when nothing was stored under an `ETag`, the `Last-Modified` rule decides;
    /// - a `Last-Modified` in the 304 (when no `ETag` decided) must equal the stored one (as
    ///   dates when both parse, else verbatim); a stored entry without `Last-Modified` accepts it;
    /// - a 304 without validators selects the entry (there is one stored response per key).
    func isSelected(byNotModified headers: HTTPHeaders) -> Bool {
        if let received = Self.nonEmptyValue(headers["ETag"]) {
            let new = EntityTag(received)
            if let storedValue = etag {
                let stored = EntityTag(storedValue)
                return new.isWeak ? new.opaque == stored.opaque : stored.strongMatches(new)
            }
            if !new.isWeak { return false }
        }
        if let received = Self.nonEmptyValue(headers["Last-Modified"]), let lastModified {
            if let newDate = HTTPDate.parse(received), let storedDate = HTTPDate.parse(lastModified) {
                return newDate == storedDate
            }
            return received == lastModified
        }
        return true
    }

    /// The effect of a 304 with `headers` on this entry: ``NotModifiedOutcome/refetch`` when
    /// ``isSelected(byNotModified:)`` is false, else ``revalidated(with:requestHeaders:requestTime:responseTime:)``
    /// as ``NotModifiedOutcome/updated(_:)`` or ``NotModifiedOutcome/remove``.
    func applyingNotModified(
        _ headers: HTTPHeaders,
        requestHeaders: HTTPHeaders? = nil,
        requestTime: Date,
        responseTime: Date
    ) -> NotModifiedOutcome {
        guard isSelected(byNotModified: headers) else { return .refetch }
        guard let updated = revalidated(
            with: headers, requestHeaders: requestHeaders, requestTime: requestTime, responseTime: responseTime
        ) else { return .remove }
        return .updated(updated)
    }

    private static func nonEmptyValue(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}

/// An entity tag split into its weakness flag and opaque tag (RFC 9110 8.8.3). A malformed value
/// (no quotes) is kept whole as its opaque tag, so it only ever equals itself.
struct EntityTag: Equatable {
    var isWeak: Bool
    var opaque: Substring

    init(_ value: String) {
        var rest = Substring(value.trimmingCharacters(in: .whitespaces))
        isWeak = rest.hasPrefix("W/")
        if isWeak { rest = rest.dropFirst(2) }
        opaque = rest
    }

    /// Strong comparison: both strong and the same opaque tag.
    func strongMatches(_ other: EntityTag) -> Bool {
        !isWeak && !other.isWeak && opaque == other.opaque
    }
}
