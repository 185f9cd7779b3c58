import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Response header fields with case-insensitive name lookup (`headers["etag"]` finds `ETag`).
///
/// Values are stored with surrounding whitespace trimmed. When the input holds the same name
/// more than once with different spellings (`"ETag"` and `"etag"`), the values are combined
/// with `", "` in the order of their original names, like repeated field lines (RFC 9110 5.3).
struct HTTPHeaders: Sendable, Hashable {
    /// Values keyed by lowercased field name.
    private var storage: [String: String]
    /// The fields as given (names in their original spelling, values untrimmed).
    private(set) var fields: [String: String]

    /// Headers from a plain dictionary, such as a test fixture or a stored response.
    init(_ fields: [String: String] = [:]) {
        var storage: [String: String] = [:]
        storage.reserveCapacity(fields.count)
        // Sorting keeps the combination of case-variant duplicates deterministic.
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            Self.add(name: name, value: value, to: &storage)
        }
        self.storage = storage
        self.fields = fields
    }

    /// Headers of an HTTP response. `allHeaderFields` keys are `String` (Linux) or bridged
    /// `NSString` (Apple); values that are not strings are described with `String(describing:)`.
    init(_ response: HTTPURLResponse) {
        var fields: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            let name = (key.base as? String) ?? String(describing: key.base)
            let text = (value as? String) ?? String(describing: value)
            if let existing = fields[name] {
                fields[name] = existing + ", " + text
            } else {
                fields[name] = text
            }
        }
        self.init(fields)
    }

    /// The value of the field `name` (any case), or `nil` when absent.
    subscript(_ name: String) -> String? {
        storage[name.lowercased()]
    }

    private static func add(name: String, value: String, to storage: inout [String: String]) {
        let key = name.trimmingCharacters(in: .whitespaces).lowercased()
        guard !key.isEmpty else { return }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        if let existing = storage[key] {
            storage[key] = existing + ", " + trimmed
        } else {
            storage[key] = trimmed
        }
    }
}
