import Foundation

/// A `data:` URL (RFC 2397): `data:[<media type>][;base64],<data>`, which `URLSession`, and so
/// `AsyncImage`, loads. The pipeline reads it without the network, within
/// ``ImagePipeline/Configuration/maximumResponseBytes``, and validates the bytes like a download.
struct DataURL: Sendable, Equatable {
    /// Why a `data:` URL gives no bytes.
    enum Failure: Error, Equatable {
        /// Not a `data:` URL, no comma, or base64 that does not decode.
        case malformed
        /// The bytes would be more than the limit.
        case tooLarge
    }

    /// The media type, lowercased without parameters (`image/svg+xml`); `nil` when omitted.
    var mediaType: String?
    var data: Data

    /// Decodes `url`, refusing (before decoding) a payload whose bytes would exceed `maxBytes`.
    ///
    /// - Throws: ``Failure``.
    init(_ url: URL, maxBytes: Int?) throws {
        let text = url.absoluteString
        guard text.count > 5, text.prefix(5).lowercased() == "data:", let comma = text.firstIndex(of: ",") else {
            throw Failure.malformed
        }
        let header = text[text.index(text.startIndex, offsetBy: 5)..<comma]
        var parameters = header.split(separator: ";", omittingEmptySubsequences: false).map { String($0) }
        let isBase64 = parameters.count > 1 && parameters.last?.lowercased() == "base64"
        if isBase64 { parameters.removeLast() }
        let type = parameters.first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        mediaType = type.isEmpty ? nil : type
        let payload = text[text.index(after: comma)...].utf8
        // Either way, the bytes are at most as many as the payload's characters (3/4 of them for base64).
        if let maxBytes, (isBase64 ? payload.count / 4 * 3 : payload.count) > maxBytes {
            throw Failure.tooLarge
        }
        let raw = try Self.percentDecoded(payload)
        if isBase64 {
            var base64 = raw.filter { !$0.isASCIIWhitespace }
            while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
            guard let decoded = Data(base64Encoded: Data(base64)) else { throw Failure.malformed }
            data = decoded
        } else {
            data = Data(raw)
        }
        if let maxBytes, data.count > maxBytes { throw Failure.tooLarge }
    }

    /// The payload's bytes with `%XX` escapes decoded.
    private static func percentDecoded(_ payload: Substring.UTF8View) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count)
        var iterator = payload.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw Failure.malformed
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

private extension UInt8 {
    var isASCIIWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}
