// Fuzz target "placeholder-hashes": the ThumbHash and BlurHash strings a feed sends with each
// image URL, decoded as the views decode them (`HashPlaceholder`) and directly: ThumbHash from
// Base64 and from raw bytes (its header, aspect ratio, average colour and image), BlurHash at the
// views' 32x32 and at other sizes and contrasts.
//
// The input is the hash itself (text for BlurHash and Base64 ThumbHash, raw bytes for ThumbHash).
@testable import CachedImageCore
import Foundation

enum FuzzTarget {
    static let sizes = [(1, 1), (32, 32), (7, 40)]
    /// The contrast an input is decoded with, picked by its length (below 1 and NaN decode as 1).
    static let punches: [Double] = [1, 3, -1, .infinity, .nan]

    static func run(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        if let hash = try? BlurHash(text) {
            _ = hash.averageColor
            for (width, height) in sizes {
                _ = hash.image(width: width, height: height, punch: punches[Int(data.count % punches.count)])
            }
        }
        for thumbHash in [try? ThumbHash(base64: text), try? ThumbHash(bytes: data)] {
            guard let thumbHash else { continue }
            _ = (thumbHash.aspectRatio, thumbHash.hasAlpha, thumbHash.averageColor, thumbHash.imageSize)
            _ = thumbHash.image()
        }
        for placeholder in [HashPlaceholder.blurHash(text), .thumbHash(text)] {
            _ = (placeholder.image, placeholder.aspectRatio)
        }
    }

    /// The hashes the decoders are tested against (Tests/Fixtures/Placeholders, read from the
    /// repository when the script runs there), and a few of each format's edge cases.
    static func seeds() -> [String: Data] {
        var seeds: [String: Data] = [
            "blurhash-readme": Data("LEHV6nWB2yk8pyo0adR*.7kCMdnj".utf8),
            "blurhash-1x1": Data("00TI:j".utf8),
            "blurhash-9x9": Data(("|" + String(repeating: "A", count: 3 + 2 * 81)).utf8), // 4 + 2 x 81 characters
            "thumbhash-readme": Data("1QcSHQRnh493V4dIh4eXh1h4kJUI".utf8),
            "thumbhash-alpha": Data("3PcNNYSFeXh/k0oGLQaSVsN0BVhn2oq2Z5SQUQcZ".utf8),
        ]
        for format in ["blurhash", "thumbhash"] {
            let file = URL(fileURLWithPath: "Tests/Fixtures/Placeholders/\(format)-reference.json")
            guard let json = try? Data(contentsOf: file),
                  let entries = try? JSONSerialization.jsonObject(with: json) as? [[String: Any]] else { continue }
            for (index, entry) in entries.enumerated() {
                if let hash = entry["hash"] as? String { seeds["\(format)-\(index)"] = Data(hash.utf8) }
            }
        }
        return seeds
    }
}
