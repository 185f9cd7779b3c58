import Foundation
import Testing
@testable import CachedImageCore

@Suite("BlurHash")
struct BlurHashTests {
    @Test("decodes like the reference implementation, within 1 per channel")
    func matchesReference() throws {
        let vectors = try ReferenceVectors.load("blurhash-reference.json", as: [ReferenceVectors.BlurHashVector].self)
        #expect(vectors.count >= 10)
        for vector in vectors {
            let image = try BlurHash(vector.hash).image(width: vector.width, height: vector.height)
            let expected = [UInt8](try #require(Data(base64Encoded: vector.rgba)))
            #expect(image.width == vector.width && image.height == vector.height)
            #expect(image.rgba.count == expected.count)
            #expect(ReferenceVectors.maximumDifference(image.rgba, expected) <= 1, "\(vector.hash)")
        }
    }

    @Test("the set covers 1x1 up to 9x9 components")
    func vectorsCoverComponentCounts() throws {
        let hashes = try ReferenceVectors.load("blurhash-reference.json", as: [ReferenceVectors.BlurHashVector].self)
            .map { try BlurHash($0.hash) }
        #expect(hashes.contains { $0.componentsX == 1 && $0.componentsY == 1 })
        #expect(hashes.contains { $0.componentsX == 9 && $0.componentsY == 9 })
        #expect(hashes.contains { $0.componentsX != $0.componentsY })
    }

    @Test("the average colour is the DC component; a 1x1 hash decodes to it everywhere")
    func averageColor() throws {
        let hash = try BlurHash("00HetV")
        let image = hash.image(width: 4, height: 4)
        let average = hash.averageColor
        for y in 0..<4 { for x in 0..<4 { #expect(image.pixel(x: x, y: y) == average) } }
        #expect(!image.hasAlpha)
    }

    @Test("malformed strings are refused with a typed error")
    func malformed() {
        #expect(throws: PlaceholderHashError.tooShort(length: 5, minimum: 6)) { try BlurHash("LEHV6") }
        #expect(throws: PlaceholderHashError.lengthMismatch(length: 27, expected: 28)) { try BlurHash("LEHV6nWB2yk8pyo0adR*.7kCMdn") }
        #expect(throws: PlaceholderHashError.lengthMismatch(length: 29, expected: 28)) { try BlurHash("LEHV6nWB2yk8pyo0adR*.7kCMdnjj") }
        #expect(throws: PlaceholderHashError.invalidCharacter("\"", offset: 4)) { try BlurHash("LEHV\"nWB2yk8pyo0adR*.7kCMdnj") }
        #expect(throws: PlaceholderHashError.invalidCharacter("é", offset: 1)) { try BlurHash("Lé HV6nWB2yk8pyo0adR*.7kCMdnj") }
        // A size flag of 81 ("}") announces 10 components down.
        #expect(throws: PlaceholderHashError.invalidComponentCount) { try BlurHash("}0" + String(repeating: "0", count: 2 + 2 * 90)) }
    }
}
