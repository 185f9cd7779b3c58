import Foundation
import Testing
@testable import CachedImageCore

@Suite("Hash placeholders")
struct HashPlaceholderTests {
    @Test("a placeholder decodes to its hash's image, ThumbHash with its aspect ratio")
    func decodes() throws {
        let thumb = HashPlaceholder.thumbHash("1QcSHQRnh493V4dIh4eXh1h4kJUI")
        #expect(thumb.image == (try ThumbHash(base64: "1QcSHQRnh493V4dIh4eXh1h4kJUI")).image())
        #expect(thumb.aspectRatio == (try ThumbHash(base64: "1QcSHQRnh493V4dIh4eXh1h4kJUI")).aspectRatio)
        let blur = HashPlaceholder.blurHash("LEHV6nWB2yk8pyo0adR*.7kCMdnj")
        #expect(blur.image == (try BlurHash("LEHV6nWB2yk8pyo0adR*.7kCMdnj")).image(width: 32, height: 32))
        #expect(blur.aspectRatio == nil)
        // Read again: the same image (from the shared cache).
        #expect(blur.image == blur.image)
    }

    @Test("a malformed hash is no placeholder (the view shows its usual one)")
    func malformed() {
        #expect(HashPlaceholder.thumbHash("!!").image == nil)
        #expect(HashPlaceholder.blurHash("short").image == nil)
        #expect(HashPlaceholder.thumbHash("!!").aspectRatio == nil)
    }
}
