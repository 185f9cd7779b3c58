// Fuzz target "data-urls": `data:` URLs (RFC 2397: media type, parameters, base64 or percent
// escapes) as the pipeline reads them, and the image validation their bytes then get.
@testable import CachedImageCore
import Foundation
import ImageFixtures

enum FuzzTarget {
    static let validator = ResponseValidator(maximumPixelCount: 100_000_000)

    static func run(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        for candidate in [text, "data:" + text] {
            guard let url = URL(string: candidate) else { continue }
            for limit in [nil, 0, 64, 1 << 20] as [Int?] {
                _ = try? DataURL(url, maxBytes: limit)
            }
            _ = try? validator.validateDataURL(url, maxBytes: 1 << 20)
        }
    }

    static func seeds() -> [String: Data] {
        let png = ImageFixtures.png(width: 4, height: 3, seed: 1)
        let seeds: [String: String] = [
            "base64-png": "data:image/png;base64," + png.base64EncodedString(),
            "percent": "data:,A%20brief%20note%FF%00",
            "charset": "data:text/plain;charset=US-ASCII;base64,SGVsbG8=",
            "spaces": "data:image/gif;base64,R0lG ODlh AQAB",
            "no-type": "data:;base64,////",
            "unpadded": "data:image/png;base64," + png.base64EncodedString().replacingOccurrences(of: "=", with: ""),
        ]
        return seeds.mapValues { Data($0.utf8) }
    }
}
