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

    @Test("a self-sizing row reserves the image's height: one known side gives the other from the hash's aspect ratio")
    func sizeForProposal() throws {
        let thumb = HashPlaceholder.thumbHash("1QcSHQRnh493V4dIh4eXh1h4kJUI")
        let ratio = try #require(thumb.aspectRatio)
        let row = try #require(thumb.size(proposedWidth: 390, proposedHeight: nil))
        #expect(row.width == 390 && abs(row.height - 390 / ratio) < 1e-9, "a feed row's height before the image")
        let column = try #require(thumb.size(proposedWidth: nil, proposedHeight: 200))
        #expect(abs(column.width - 200 * ratio) < 1e-9 && column.height == 200)
        // Both sides: stretched over the view, as the image will be.
        #expect(thumb.size(proposedWidth: 100, proposedHeight: 50).map { [$0.width, $0.height] } == [100, 50])
        // No side, or no ratio (BlurHash), or infinite: the view's own sizing.
        #expect(thumb.size(proposedWidth: nil, proposedHeight: .infinity) == nil)
        #expect(HashPlaceholder.blurHash("LEHV6nWB2yk8pyo0adR*.7kCMdnj").size(proposedWidth: 390, proposedHeight: nil) == nil)
    }
}
