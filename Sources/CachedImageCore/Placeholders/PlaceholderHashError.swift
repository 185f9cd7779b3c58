/// Why a ThumbHash or BlurHash string was refused. Thrown by ``ThumbHash`` and ``BlurHash``'s
/// initialisers, before anything is decoded: a malformed hash never produces an image.
package enum PlaceholderHashError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A ThumbHash string is not Base64 (standard or URL-safe alphabet, padding optional).
    case invalidBase64
    /// A BlurHash contains a character outside its Base83 alphabet, at `offset` (in characters).
    case invalidCharacter(Character, offset: Int)
    /// The hash is shorter than its header (`minimum` bytes for a ThumbHash, characters for a
    /// BlurHash).
    case tooShort(length: Int, minimum: Int)
    /// The header announces `expected` bytes (ThumbHash) or characters (BlurHash), the hash has
    /// `length`.
    case lengthMismatch(length: Int, expected: Int)
    /// The header announces a component count no encoder writes (a ThumbHash with no luminance
    /// components along a side, a BlurHash with more than 9 along one).
    case invalidComponentCount

    package var description: String {
        switch self {
        case .invalidBase64:
            "The ThumbHash is not Base64."
        case .invalidCharacter(let character, let offset):
            "The BlurHash has a character outside Base83 ('\(character)') at offset \(offset)."
        case .tooShort(let length, let minimum):
            "The hash has \(length) bytes or characters; its header alone takes \(minimum)."
        case .lengthMismatch(let length, let expected):
            "The hash has \(length) bytes or characters; its header announces \(expected)."
        case .invalidComponentCount:
            "The hash's header announces a component count no encoder writes."
        }
    }
}
