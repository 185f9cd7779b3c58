import Foundation

/// `Vary` (RFC 9111 4.1): a stored response answers a later request only when the request
/// header fields the response names have the same values as in the request that fetched it.
extension CachedResponseMetadata {
    /// Request header fields the pipeline cannot see because `URLSession` adds them itself
    /// (`Cookie` from the shared cookie storage): a response that varies on one of them could
    /// belong to another user (a logout and login), so it is never reused.
    ///
    /// Other fields `URLSession` adds (`Accept-Encoding`, `User-Agent`, `Accept-Language`)
    /// have the same value on every request of a process, so a response varying on them is
    /// matched on the value the pipeline saw (usually absent both times) and stays reusable.
    package static let unobservableRequestHeaders: Set<String> = ["cookie", "cookie2"]

    /// The `VaryField`s to store for a response with `responseHeaders` fetched with
    /// `requestHeaders`, or `nil` when the response must not be reused at all: `Vary: *`, or a
    /// `Vary` naming one of ``unobservableRequestHeaders``. An absent or empty `Vary` gives `[]`.
    ///
    /// Names are lowercased, de-duplicated and sorted, so `Vary: Accept, accept-encoding` and
    /// `Vary: Accept-Encoding,Accept` store the same fields.
    static func varyFields(responseHeaders: HTTPHeaders, requestHeaders: HTTPHeaders) -> [VaryField]? {
        guard let vary = responseHeaders["Vary"] else { return [] }
        var names = Set<String>()
        for element in vary.split(separator: ",") {
            let name = element.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            if name.isEmpty { continue }
            if name == "*" || unobservableRequestHeaders.contains(name) { return nil }
            names.insert(name)
        }
        return names.sorted().map { VaryField(name: $0, value: VaryField.normalizedValue(requestHeaders[$0])) }
    }

    /// Whether this stored response may answer a request with `requestHeaders` (RFC 9111 4.1):
    /// every field in ``vary`` has the same normalised value in the request, an absent field
    /// matching only an absent one. Always `true` when the response had no `Vary`.
    ///
    /// Pass the headers exactly as the request is (or would be) sent, after
    /// ``HTTPRequestDefaults/headers(applyingDefaultsTo:)``.
    func matches(requestHeaders: HTTPHeaders) -> Bool {
        vary.allSatisfy { field in
            !Self.unobservableRequestHeaders.contains(field.name)
                && VaryField.normalizedValue(requestHeaders[field.name]) == VaryField.normalizedValue(field.value)
        }
    }

    /// Whether this stored response may answer a request with these header fields (a request's
    /// `allHTTPHeaderFields`, as sent): every field named by `Vary` carries the stored value.
    package func matches(requestHeaders: [String: String]) -> Bool {
        matches(requestHeaders: HTTPHeaders(requestHeaders))
    }
}
