import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP response an image came from, as a cache presents it: its status code and header
/// fields, with a `304`'s updates applied to the stored fields (RFC 9111 3.2, 4.3.4) and, for a
/// response served from a cache, its current `Age` (RFC 9111 4.2.3, 5.1).
///
/// ```swift
/// let response = try await pipeline.image(for: request)
/// if let http = response.httpResponse {
///     print(http.statusCode, http.value(forHTTPHeaderField: "Content-Type") ?? "-")
/// }
/// ```
///
/// Fields a cache does not store (RFC 9111 3.1) are left out: `Connection` and the fields it
/// names, `Keep-Alive`, `Proxy-Connection`, `Proxy-Authenticate`, `Proxy-Authentication-Info`,
/// `Proxy-Authorization`, `TE`, `Transfer-Encoding` and `Upgrade`.
package struct CachedHTTPResponse: Sendable, Hashable, Codable {
    /// The status code of the response the image's bytes came with.
    package var statusCode: Int
    /// The header fields, keyed by name as the server spelled it (the loader may have
    /// combined repeated fields with `", "`).
    package var headerFields: [String: String]

    /// A response with the given status and fields.
    package init(statusCode: Int, headerFields: [String: String]) {
        self.statusCode = statusCode
        self.headerFields = headerFields
    }

    /// The value of the field `name`, in any case; `nil` when absent.
    package func value(forHTTPHeaderField name: String) -> String? {
        if let value = headerFields[name] { return value }
        return headerFields.first { Self.isSameFieldName($0.key, name) }?.value
    }

    /// Whether two field names are the same name: equal but for the case of ASCII letters
    /// (field names are ASCII tokens, RFC 9110 5.1). Compares UTF-8 bytes: Foundation's
    /// `caseInsensitiveCompare` bridges to `NSString` on Linux and took about 4,000 instructions
    /// per name, once per stored field on every disk hit (``withAge(_:)``).
    static func isSameFieldName(_ first: String, _ second: String) -> Bool {
        let (a, b) = (first.utf8, second.utf8)
        guard a.count == b.count else { return false }
        return a.elementsEqual(b) { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= UInt8(ascii: "a") && (x | 0x20) <= UInt8(ascii: "z"))
        }
    }

    /// Fields a cache never stores (RFC 9111 3.1), lowercased; `Connection` adds the ones it names.
    static let unstoredFieldNames: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authentication-info",
        "proxy-authorization", "te", "transfer-encoding", "upgrade",
    ]

    /// Fields a `304` does not update in the stored response (RFC 9111 3.2): `Content-Length`
    /// describes the stored body, not the empty one of the 304.
    static let notUpdatedFieldNames: Set<String> = ["content-length"]

    /// `fields` without the ones a cache must not store.
    static func storable(_ fields: [String: String]) -> [String: String] {
        var excluded = unstoredFieldNames
        for (name, value) in fields where name.lowercased() == "connection" {
            for listed in value.split(separator: ",") {
                excluded.insert(listed.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        return fields.filter { !excluded.contains($0.key.lowercased()) }
    }

    /// The storable response of `response` (`nil` when it is not an HTTP response).
    init?(_ response: URLResponse) {
        guard let http = response as? HTTPURLResponse else { return nil }
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            let name = (key.base as? String) ?? String(describing: key.base)
            let text = (value as? String) ?? String(describing: value)
            fields[name] = fields[name].map { $0 + ", " + text } ?? text
        }
        self.init(statusCode: http.statusCode, headerFields: Self.storable(fields))
    }

    /// This stored response updated by a `304 Not Modified` with `notModified`'s fields
    /// (RFC 9111 3.2): every storable field the 304 sends replaces the stored one (whatever its
    /// spelling), except `Content-Length`; the others are kept.
    func updated(byNotModified notModified: [String: String]) -> CachedHTTPResponse {
        var fields = headerFields
        for (name, value) in Self.storable(notModified) where !Self.notUpdatedFieldNames.contains(name.lowercased()) {
            for existing in fields.keys where Self.isSameFieldName(existing, name) {
                fields[existing] = nil
            }
            fields[name] = value
        }
        return CachedHTTPResponse(statusCode: statusCode, headerFields: fields)
    }

    /// This response with `Age` set to `age` whole seconds (the fraction dropped), replacing
    /// any `Age` it was stored with.
    func withAge(_ age: TimeInterval) -> CachedHTTPResponse {
        var fields = headerFields
        // Usually none: a copy of the fields with one more is all a disk or memory hit pays.
        for name in headerFields.keys where name != "Age" && Self.isSameFieldName(name, "Age") {
            fields[name] = nil
        }
        let seconds = age.isFinite ? min(max(age, 0), CacheControl.maximumDeltaSeconds) : 0
        fields["Age"] = String(Int64(seconds))
        return CachedHTTPResponse(statusCode: statusCode, headerFields: fields)
    }
}
