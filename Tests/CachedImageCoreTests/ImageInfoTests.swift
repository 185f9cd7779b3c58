import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

@Suite("ImageInfo")
struct ImageInfoTests {
    /// Little helpers to hand-build container headers.
    private static func be32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
    private static func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
    private static func le16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
    private static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }
    private static func riff(_ chunk: String, _ payload: [UInt8]) -> Data {
        let body = Array("WEBP".utf8) + Array(chunk.utf8) + le32(UInt32(payload.count)) + payload
        return Data(Array("RIFF".utf8) + le32(UInt32(body.count)) + body)
    }

    @Test("generated PNG, JPEG and GIF files report their format, size and completeness",
          arguments: [(1, 1), (64, 48), (333, 17)])
    func fixtures(width: Int, height: Int) throws {
        let files: [(Data, ImageFormat)] = [
            (ImageFixtures.png(width: width, height: height, seed: 3), .png),
            (ImageFixtures.png(width: width, height: height, seed: 3, hasAlpha: true), .png),
            (ImageFixtures.jpeg(width: width, height: height, seed: 3), .jpeg),
            (ImageFixtures.gif(width: width, height: height), .gif),
        ]
        for (data, format) in files {
            let info = try #require(ImageInfo(data: data))
            #expect(info.format == format)
            #expect(info.pixelSize == PixelSize(width: width, height: height))
            #expect(ImageInfo.isComplete(data, format: format))
        }
    }

    @Test("WebP lossy, lossless and extended headers")
    func webP() throws {
        // VP8: 3-byte frame tag, start code, then 14-bit width and height.
        let vp8 = Self.riff("VP8 ", [0x9D, 0x01, 0x2A].prefixedBy([0x10, 0x02, 0x00]) + Self.le16(640) + Self.le16(480) + [0, 0])
        #expect(ImageInfo(data: vp8) == ImageInfo(format: .webp, pixelSize: PixelSize(width: 640, height: 480)))
        #expect(ImageInfo.isComplete(vp8, format: .webp))

        // VP8L: signature 0x2F, then (width-1) and (height-1) packed in 14 bits each.
        let packed = UInt32(300 - 1) | (UInt32(200 - 1) << 14)
        let vp8l = Self.riff("VP8L", [0x2F] + Self.le32(packed) + [0, 0, 0])
        #expect(ImageInfo(data: vp8l)?.pixelSize == PixelSize(width: 300, height: 200))

        // VP8X: flags, reserved, then 24-bit (width-1) and (height-1).
        let vp8x = Self.riff("VP8X", [0, 0, 0, 0] + [0x1F, 0x03, 0x00] + [0xFF, 0x01, 0x00])
        #expect(ImageInfo(data: vp8x)?.pixelSize == PixelSize(width: 800, height: 512))
        #expect(!ImageInfo.isComplete(vp8x.dropLast(2), format: .webp))
    }

    @Test("HEIC and AVIF are told apart by brand and sized by their ispe property")
    func heif() throws {
        for (brand, format) in [("heic", ImageFormat.heic), ("avif", .avif)] {
            let ftyp = Self.box("ftyp", Array(brand.utf8) + Self.be32(0) + Array("mif1".utf8) + Array(brand.utf8))
            let ispe = Self.box("ispe", [0, 0, 0, 0] + Self.be32(4032) + Self.be32(3024))
            let meta = Self.box("meta", [0, 0, 0, 0] + Self.box("iprp", Self.box("ipco", ispe)))
            let file = Data(ftyp + meta + Self.box("mdat", [1, 2, 3]))
            let info = try #require(ImageInfo(data: file))
            #expect(info.format == format)
            #expect(info.pixelSize == PixelSize(width: 4032, height: 3024))
            #expect(ImageInfo.isComplete(file, format: format))
            #expect(!ImageInfo.isComplete(file.dropLast(), format: format))
        }
    }

    @Test("bodies that are not images are rejected", arguments: [
        "<!DOCTYPE html><html><body>Not found</body></html>",
        "{\"error\": \"forbidden\"}",
        "",
        "GIF",
        "RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ",
    ])
    func notImages(text: String) {
        #expect(ImageInfo(data: Data(text.utf8)) == nil)
    }

    @Test("a decompression bomb is sized from its 33-byte header, without decoding")
    func bombHeader() throws {
        let header = ImageFixtures.pngHeader(width: 20_000, height: 20_000)
        let info = try #require(ImageInfo(data: header))
        #expect(info.pixelSize?.pixelCount == 400_000_000)
        #expect(!ImageInfo.isComplete(header, format: .png))
    }

    @Test("every prefix of a valid file is handled without trapping and is never complete")
    func everyPrefix() throws {
        let files: [(Data, ImageFormat)] = [
            (ImageFixtures.png(width: 9, height: 7, seed: 1), .png),
            (ImageFixtures.jpeg(width: 17, height: 9, seed: 1), .jpeg),
            (ImageFixtures.gif(width: 5, height: 5), .gif),
        ]
        for (data, format) in files {
            for length in 0..<data.count {
                let prefix = data.prefix(length)
                if let info = ImageInfo(data: prefix) {
                    #expect(info.format == format)
                }
                #expect(!ImageInfo.isComplete(prefix, format: format), "\(format) prefix of \(length) bytes")
            }
        }
    }

    @Test("random and mutated bytes never trap")
    func fuzz() {
        var state: UInt64 = 0x1234_5678
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            return z ^ (z >> 31)
        }
        let seeds = [ImageFixtures.png(width: 8, height: 8), ImageFixtures.jpeg(width: 16, height: 16), ImageFixtures.gif(width: 4, height: 4)]
        for round in 0..<3_000 {
            var bytes = [UInt8](seeds[round % seeds.count])
            for _ in 0..<(1 + Int(next() % 8)) {
                bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next())
            }
            let data = Data(bytes.prefix(Int(next() % UInt64(bytes.count + 1))))
            let info = ImageInfo(data: data)
            for format in ImageFormat.allCases {
                _ = ImageInfo.isComplete(data, format: format)
            }
            if let size = info?.pixelSize {
                #expect(size.width > 0 && size.height > 0)
            }
        }
    }
}

private extension Array where Element == UInt8 {
    func prefixedBy(_ prefix: [UInt8]) -> [UInt8] { prefix + self }
}
