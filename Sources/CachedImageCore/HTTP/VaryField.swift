import Foundation

/// One request header field a stored response varies on (RFC 9111 4.1), with the value the
/// request that fetched the response had for it.
///
/// Names are lowercased; values are normalised (the whitespace around the value and around list
/// commas dropped, so `1, 2`, `1,2`, ` 1 , 2 ` and two field lines `1` and `2` match, as
/// browsers match them). A header that was absent (`value == nil`) is distinct from one that was
/// present but empty (`value == ""`).
package struct VaryField: Sendable, Hashable, Codable {
    /// The lowercased field name, such as `accept`.
    package var name: String
    /// The normalised value the original request had, or `nil` when it did not send the field.
    package var value: String?

    /// A field; `name` should already be lowercased.
    package init(name: String, value: String?) {
        self.name = name
        self.value = value
    }

    /// A request's value for a varied field as it is stored and compared: the whitespace around
    /// the value and around each comma removed (RFC 9110 5.6.1: optional whitespace in a list is
    /// not part of its elements; several field lines combine with commas). `nil` stays `nil`.
    static func normalizedValue(_ value: String?) -> String? {
        guard let value else { return nil }
        guard value.contains(",") else { return value.trimmingCharacters(in: .whitespacesAndNewlines) }
        return value.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .joined(separator: ",")
    }
}
