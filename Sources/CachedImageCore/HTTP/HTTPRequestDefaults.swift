import Foundation

/// Request header fields the pipeline sends on its own, fixed so that a response that varies on
/// them (`Vary: Accept`) sees the same value on every request and stays reusable.
///
/// The pipeline sets ``accept`` on every request whose `urlRequest` has no `Accept` of its own
/// (see ``headers(applyingDefaultsTo:)``); a caller-supplied `Accept` is sent and matched as
/// given. The value lists only formats the decoders of every supported OS version understand
/// (AVIF, which iOS 15 cannot decode, is deliberately not named; a server may still choose it
/// for `image/*`, and the decoder then reports it clearly).
package enum HTTPRequestDefaults {
    /// The `Accept` field name.
    package static let acceptFieldName = "Accept"
    /// The `Accept` value the pipeline sends when the request has none.
    package static let accept = "image/webp,image/heic,image/png,image/jpeg,image/gif,image/*;q=0.8,*/*;q=0.5"

    /// `fields` (a request's `allHTTPHeaderFields`) with ``accept`` added when no `Accept`
    /// field (in any case) is present. Use the result both for the request that is sent and for
    /// the `Vary` bookkeeping, so stored and matched values agree.
    package static func headers(applyingDefaultsTo fields: [String: String]) -> [String: String] {
        var fields = fields
        if !fields.keys.contains(where: { CachedHTTPResponse.isSameFieldName($0, acceptFieldName) }) {
            fields[acceptFieldName] = accept
        }
        return fields
    }
}
