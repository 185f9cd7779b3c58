import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// No way around the pixel limit: frames, directories and icon entries are sized from what
/// they hold, a size the header does not give is never waved through, and the limit bounds
/// what is decoded.
@Suite("Pixel guard: sizes a header check could miss")
struct PixelGuardTests {
    static let url = URL(string: "https://example.com/image")!

    static func validate(_ data: Data, maximumPixelCount: Int = 64_000_000) throws -> ImageInfo {
        try ResponseValidator(maximumPixelCount: maximumPixelCount)
            .validate(data, url: url, contentType: nil, expectedLength: nil, transfer: .complete)
    }

    /// Expects `body` to fail with `imageTooLarge` naming `size`.
    static func expectTooLarge(_ size: PixelSize, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> ImageInfo) {
        do {
            let info = try body()
            Issue.record("accepted \(info)", sourceLocation: sourceLocation)
        } catch {
            guard case .imageTooLarge(_, let reported, _) = error as? ImagePipeline.Error, reported == size else {
                Issue.record("got \(error)", sourceLocation: sourceLocation)
                return
            }
        }
    }

    @Test("a GIF's frame descriptors count: a 1x1 screen cannot hide a 20000x20000 frame; the canvas grows to the frame, as decoders grow it")
    func gifFrameOutsideTheScreen() {
        let bomb = ImageFixtures.gifWithOversizedFrame(screen: 1, frameWidth: 20_000, frameHeight: 20_000)
        let info = ImageInfo(data: bomb)
        #expect(info?.pixelSize == PixelSize(width: 20_000, height: 20_000))
        #expect(info?.decodingSize == PixelSize(width: 20_000, height: 20_000))
        Self.expectTooLarge(PixelSize(width: 20_000, height: 20_000)) { try Self.validate(bomb) }
        // A prefix before the first image descriptor does not say yet (the loader's early check waits).
        #expect(ImageInfo(data: bomb.prefix(34))?.decodingSize == nil)
        #expect(ImageInfo(data: bomb.prefix(34))?.pixelSize == PixelSize(width: 1, height: 1))
        // A small frame placed past the screen's corner grows it too (x + width, y + height).
        var placed = [UInt8](ImageFixtures.gifWithOversizedFrame(screen: 10, frameWidth: 6, frameHeight: 6))
        placed.replaceSubrange(26..<30, with: [10, 0, 4, 0])
        #expect(ImageInfo(data: Data(placed))?.pixelSize == PixelSize(width: 16, height: 10))
        #expect(ImageInfo(data: bomb.prefix(35))?.decodingSize == PixelSize(width: 20_000, height: 20_000))
        // An ordinary GIF's frames lie inside its screen.
        #expect(ImageInfo(data: ImageFixtures.animatedGIF(width: 30, height: 20, delays: [5, 5]))?.decodingSize == PixelSize(width: 30, height: 20))
    }

    @Test("APNG and animated WebP frames count where they reach outside the canvas")
    func animationFramesOutsideTheCanvas() throws {
        var apng = [UInt8](ImageFixtures.apng(width: 20, height: 10, delays: [(1, 10), (1, 10)]))
        let fcTL = try #require(apng.firstRange(of: Array("fcTL".utf8)))
        // fcTL: sequence number, then width (offset 4 of its data) and height.
        apng.replaceSubrange((fcTL.upperBound + 4)..<(fcTL.upperBound + 12), with: [0, 0, 0x4E, 0x20, 0, 0, 0x4E, 0x20])
        #expect(ImageInfo(data: Data(apng))?.pixelSize == PixelSize(width: 20, height: 10))
        #expect(ImageInfo(data: Data(apng))?.decodingSize == PixelSize(width: 20_000, height: 20_000))

        var webP = [UInt8](ImageFixtures.animatedWebP(width: 20, height: 10, durations: [50, 50]))
        let anmf = try #require(webP.firstRange(of: Array("ANMF".utf8)))
        // ANMF payload: x, y (24 bits each), then width - 1 and height - 1.
        let widthField = anmf.upperBound + 4 + 6
        webP.replaceSubrange(widthField..<(widthField + 6), with: [0x1F, 0x4E, 0, 0x1F, 0x4E, 0])
        #expect(ImageInfo(data: Data(webP))?.decodingSize == PixelSize(width: 20_000, height: 20_000))
        Self.expectTooLarge(PixelSize(width: 20_000, height: 20_000)) { try Self.validate(Data(webP)) }
    }

    @Test("TIFF: a body cut before its directory is refused, not accepted as 0x0; BigTIFF is sniffed")
    func tiffDirectory() throws {
        let tiff = ImageFixtures.tiff(width: 30, height: 20)
        #expect(ImageInfo(data: tiff)?.pixelSize == PixelSize(width: 30, height: 20))
        #expect(ImageInfo.isComplete(tiff, format: .tiff))
        let beforeDirectory = tiff.prefix(8 + 30 * 20)
        #expect(ImageInfo(data: beforeDirectory)?.pixelSize == nil)
        #expect(!ImageInfo.isComplete(beforeDirectory, format: .tiff))
        #expect { try Self.validate(beforeDirectory) } throws: { error in
            guard case .invalidImage(_, .tiff, let reason) = error as? ImagePipeline.Error else { return false }
            return reason.contains("size") && reason.contains("directory")
        }
        // The directory arrived but the strip it points at did not.
        let directoryFirst = ImageFixtures.Variant.tiffBigEndian.data
        #expect(!ImageInfo.isComplete(directoryFirst.dropLast(), format: .tiff))

        let big = ImageFixtures.tiff(width: 70_000, height: 300, big: true)
        #expect(ImageInfo(data: big) == ImageInfo(format: .tiff, pixelSize: PixelSize(width: 70_000, height: 300)))
        #expect(ImageInfo.isComplete(big, format: .tiff))
        Self.expectTooLarge(PixelSize(width: 70_000, height: 300)) { try Self.validate(big, maximumPixelCount: 1_000_000) }
    }

    @Test("ICO entries are sized and measured from what they hold, not from the directory")
    func icoFromItsImages() {
        let bomb = ImageFixtures.icoUnderstatingItsImage(listedSide: 16, width: 20_000, height: 20_000, headerOnly: true)
        #expect(ImageInfo(data: bomb)?.pixelSize == PixelSize(width: 20_000, height: 20_000))
        Self.expectTooLarge(PixelSize(width: 20_000, height: 20_000)) { try Self.validate(bomb) }
        // Before the entry's image header arrives, the directory's 16x16 is not taken for its size.
        #expect(ImageInfo(data: bomb.prefix(30))?.format == .ico)
        #expect(ImageInfo(data: bomb.prefix(30))?.pixelSize == nil)

        // A directory whose byte count covers a cut PNG: the PNG's own end decides.
        let icon = ImageFixtures.icoUnderstatingItsImage(listedSide: 40, width: 40, height: 30, headerOnly: false)
        var lying = [UInt8](icon.dropLast(10))
        lying.replaceSubrange(14..<18, with: ContainerBytes.u32le(lying.count - 22))
        #expect(ImageInfo.isComplete(icon, format: .ico))
        #expect(!ImageInfo.isComplete(Data(lying), format: .ico))
        #expect(ImageInfo(data: icon)?.pixelSize == PixelSize(width: 40, height: 30))
    }

    @Test("the limit bounds what is decoded: the decoded size where the decoder downsamples while decoding, the source otherwise")
    func decodedSizeRule() {
        let limit = PixelLimit(maximumPixelCount: 64_000_000)
        let photo = ImageInfo(format: .jpeg, pixelSize: PixelSize(width: 12_000, height: 9_000)) // 108 MP
        let thumbnail = PixelSize(width: 300, height: 300)
        #expect(limit.plan(for: photo, targetSize: thumbnail, downsamples: true) == .decode(targetSize: thumbnail))
        #expect(limit.plan(for: photo, targetSize: nil, downsamples: true) == .refuse(photo.pixelSize!))
        #expect(limit.plan(for: photo, targetSize: thumbnail, downsamples: false) == .refuse(photo.pixelSize!))
        // 200 MP passes as a thumbnail; past 4 times the limit nothing does.
        let huge = ImageInfo(format: .jpeg, pixelSize: PixelSize(width: 16_320, height: 12_240))
        #expect(limit.plan(for: huge, targetSize: thumbnail, downsamples: true) == .decode(targetSize: thumbnail))
        let absurd = ImageInfo(format: .jpeg, pixelSize: PixelSize(width: 60_000, height: 60_000))
        #expect(limit.plan(for: absurd, targetSize: thumbnail, downsamples: true) == .refuse(absurd.pixelSize!))
        // A target that still decodes over the limit is refused.
        #expect(limit.plan(for: photo, targetSize: PixelSize(width: 12_000, height: 9_000), downsamples: true) == .refuse(photo.pixelSize!))
        // No size from the header: decoded to at most the largest square within the limit.
        let unsized = ImageInfo(format: .other, pixelSize: nil)
        #expect(limit.plan(for: unsized, targetSize: nil, downsamples: false) == .decodeUnsized(targetSize: PixelSize(width: 8_000, height: 8_000)))
        #expect(limit.plan(for: unsized, targetSize: thumbnail, downsamples: false) == .decodeUnsized(targetSize: thumbnail))
        // The loader's early check allows what the most lenient format may pass.
        #expect(limit.earlyLimit(for: HeaderImageDecoder()) == 64_000_000)
        #expect(limit.earlyLimit(for: DownsamplingDecoder()) == 256_000_000)
    }
}

/// A decoder that, like ImageIO's thumbnails for JPEG, decodes straight to the target size.
struct DownsamplingDecoder: ImageDecoding {
    func downsamplesWhileDecoding(_ info: ImageInfo) -> Bool { info.format == .jpeg }

    func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
        try HeaderImageDecoder().decode(data, info: info, targetPixelSize: targetSize)
    }
}

/// Little-endian fields for patching fixtures.
enum ContainerBytes {
    static func u32le(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(value >> ($0 * 8) & 0xFF) } }
}
