import Foundation
import Testing
@testable import CachedImageCore

@Suite("ThumbHash")
struct ThumbHashTests {
    @Test("decodes like the reference implementation, within 1 per channel")
    func matchesReference() throws {
        let vectors = try ReferenceVectors.load("thumbhash-reference.json", as: [ReferenceVectors.ThumbHashVector].self)
        #expect(vectors.count >= 10)
        for vector in vectors {
            let hash = try ThumbHash(base64: vector.hash)
            let image = hash.image()
            #expect(image.width == vector.width && image.height == vector.height, "\(vector.hash)")
            let expected = [UInt8](try #require(Data(base64Encoded: vector.rgba)))
            #expect(image.rgba.count == expected.count)
            #expect(ReferenceVectors.maximumDifference(image.rgba, expected) <= 1, "\(vector.hash)")
            #expect(abs(hash.aspectRatio - vector.aspectRatio) < 1e-9)
            let average = hash.averageColor
            for (value, reference) in zip([average.red, average.green, average.blue, average.alpha], vector.average) {
                #expect(abs(value - reference) < 1e-9, "\(vector.hash)")
            }
        }
    }

    @Test("the set covers landscape, portrait, square and transparent hashes")
    func vectorsCoverTheShapes() throws {
        let hashes = try ReferenceVectors.load("thumbhash-reference.json", as: [ReferenceVectors.ThumbHashVector].self)
            .map { try ThumbHash(base64: $0.hash) }
        #expect(hashes.contains { $0.aspectRatio > 1 } && hashes.contains { $0.aspectRatio < 1 })
        #expect(hashes.contains { $0.aspectRatio == 1 })
        #expect(hashes.contains { $0.hasAlpha && $0.image().hasAlpha })
        #expect(hashes.contains { !$0.hasAlpha && !$0.image().hasAlpha })
    }

    @Test("URL-safe Base64 and missing padding read as the same hash")
    func base64Variants() throws {
        let standard = try ThumbHash(base64: "XJqBDQA0+3xXZIiGeP1HaMBLj4dCh3aHeA==")
        #expect(try ThumbHash(base64: "XJqBDQA0-3xXZIiGeP1HaMBLj4dCh3aHeA") == standard)
        #expect(try ThumbHash(bytes: standard.bytes) == standard)
    }

    @Test("malformed hashes are refused with a typed error")
    func malformed() throws {
        #expect(throws: PlaceholderHashError.invalidBase64) { try ThumbHash(base64: "not base64!") }
        #expect(throws: PlaceholderHashError.invalidBase64) { try ThumbHash(base64: "12345") }
        #expect(throws: PlaceholderHashError.tooShort(length: 0, minimum: 5)) { try ThumbHash(base64: "") }
        #expect(throws: PlaceholderHashError.tooShort(length: 3, minimum: 5)) { try ThumbHash(bytes: [1, 2, 3]) }
        let valid = try ThumbHash(base64: "1QcSHQRnh493V4dIh4eXh1h4kJUI").bytes
        #expect(throws: PlaceholderHashError.lengthMismatch(length: valid.count - 1, expected: valid.count)) {
            try ThumbHash(bytes: valid.dropLast())
        }
        #expect(throws: PlaceholderHashError.lengthMismatch(length: valid.count + 1, expected: valid.count)) {
            try ThumbHash(bytes: valid + [0])
        }
        // A portrait header with no luminance components across.
        var zeroWidth = valid
        zeroWidth[3] &= ~7
        zeroWidth[4] &= 0x7F
        #expect(throws: PlaceholderHashError.invalidComponentCount) { try ThumbHash(bytes: zeroWidth) }
    }
}
