import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// The fixture generator, checked through what the library itself reads back.
@Suite("ImageFixtures round-trip through ImageInfo")
struct ImageFixturesTests {
    static let sizes = [(1, 1), (7, 3), (8, 8), (9, 17), (64, 48), (333, 77), (1000, 3)]

    @Test("PNG fixtures report their size, are complete and are photo-sized", arguments: sizes)
    func png(width: Int, height: Int) throws {
        for hasAlpha in [false, true] {
            let data = ImageFixtures.png(width: width, height: height, seed: 9, hasAlpha: hasAlpha)
            let info = try #require(ImageInfo(data: data))
            #expect(info == ImageInfo(format: .png, pixelSize: PixelSize(width: width, height: height)))
            #expect(ImageInfo.isComplete(data, format: .png))
            #expect(!ImageInfo.isComplete(data.dropLast(), format: .png))
            // Stored blocks: at least one byte per channel plus a filter byte per row.
            #expect(data.count >= height * (1 + width * (hasAlpha ? 4 : 3)))
        }
    }

    @Test("JPEG fixtures report their size and are complete", arguments: sizes)
    func jpeg(width: Int, height: Int) throws {
        for detail in [0, 10, 63] {
            let data = ImageFixtures.jpeg(width: width, height: height, seed: 9, detail: detail)
            let info = try #require(ImageInfo(data: data))
            #expect(info == ImageInfo(format: .jpeg, pixelSize: PixelSize(width: width, height: height)))
            #expect(ImageInfo.isComplete(data, format: .jpeg))
            #expect(!ImageInfo.isComplete(data.dropLast(), format: .jpeg))
        }
    }

    @Test("GIF fixtures report their size and are complete", arguments: sizes)
    func gif(width: Int, height: Int) throws {
        let data = ImageFixtures.gif(width: width, height: height)
        let info = try #require(ImageInfo(data: data))
        #expect(info == ImageInfo(format: .gif, pixelSize: PixelSize(width: width, height: height)))
        #expect(ImageInfo.isComplete(data, format: .gif))
        #expect(!ImageInfo.isComplete(data.dropLast(), format: .gif))
    }

    @Test("The largest dimensions each format allows")
    func extremeDimensions() {
        let wideJPEG = ImageFixtures.jpeg(width: 65_535, height: 1)
        #expect(ImageInfo(data: wideJPEG)?.pixelSize == PixelSize(width: 65_535, height: 1))
        #expect(ImageInfo.isComplete(wideJPEG, format: .jpeg))
        let tallGIF = ImageFixtures.gif(width: 1, height: 65_535)
        #expect(ImageInfo(data: tallGIF)?.pixelSize == PixelSize(width: 1, height: 65_535))
        let header = ImageFixtures.pngHeader(width: 0x7FFF_FFFF, height: 1)
        #expect(ImageInfo(data: header)?.pixelSize == PixelSize(width: 0x7FFF_FFFF, height: 1))
    }

    @Test("Generators are deterministic and seeds change the bytes")
    func determinism() {
        #expect(ImageFixtures.png(width: 20, height: 20, seed: 1) == ImageFixtures.png(width: 20, height: 20, seed: 1))
        #expect(ImageFixtures.png(width: 20, height: 20, seed: 1) != ImageFixtures.png(width: 20, height: 20, seed: 2))
        #expect(ImageFixtures.jpeg(width: 20, height: 20, seed: 1) == ImageFixtures.jpeg(width: 20, height: 20, seed: 1))
        #expect(ImageFixtures.jpeg(width: 20, height: 20, seed: 1) != ImageFixtures.jpeg(width: 20, height: 20, seed: 2))
        #expect(ImageFixtures.gif(width: 20, height: 20) == ImageFixtures.gif(width: 20, height: 20))
    }

    @Test("JPEG detail makes files larger")
    func jpegDetailGrowsFiles() {
        let flat = ImageFixtures.jpeg(width: 128, height: 128, seed: 3, detail: 0).count
        let textured = ImageFixtures.jpeg(width: 128, height: 128, seed: 3, detail: 30).count
        #expect(textured > flat * 5)
        #expect(textured > 128 * 128) // Over a byte per pixel: photo-like.
    }

    @Test("pngHeader is just the signature and IHDR")
    func pngHeaderOnly() throws {
        let header = ImageFixtures.pngHeader(width: 640, height: 480)
        #expect(header.count == 33)
        let full = ImageFixtures.png(width: 640, height: 480, seed: 0, hasAlpha: true)
        #expect(full.prefix(33) == header) // Same IHDR as a real RGBA file of that size.
        #expect(ImageInfo(data: header)?.pixelSize == PixelSize(width: 640, height: 480))
    }
}
