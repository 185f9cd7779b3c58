import Foundation

/// One request header field a stored response varies on (RFC 9111 4.1), with the value the
/// request that fetched the response had for it.
///
/// Names are lowercased; values are trimmed of surrounding whitespace (several field lines
/// joined with `", "`). A header that was absent (`value == nil`) is distinct from one that was
/// present but empty (`value == ""`).
public struct VaryField: Sendable, Hashable, Codable {
    /// The lowercased field name, such as `accept`.
    public var name: String
    /// The normalised value the original request had, or `nil` when it did not send the field.
    public var value: String?

    /// A field; `name` should already be lowercased and `value` trimmed.
    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}
