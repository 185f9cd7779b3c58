import Foundation
import Testing
@testable import CachedImageCore

/// Byte builders for the formats `AsyncImage` shows beyond JPEG/PNG/GIF/WebP/HEIF.
private enum Bitmap {
    static func u16le(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func u16be(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func u32le(_ v: Int) -> [UInt8] { u16le(v & 0xFFFF) + u16le(v >> 16 & 0xFFFF) }
    static func u32be(_ v: Int) -> [UInt8] { u16be(v >> 16 & 0xFFFF) + u16be(v & 0xFFFF) }

    /// A 24-bit BMP with a BITMAPINFOHEADER (negative height: top-down rows).
    static func bmp(width: Int, height: Int, declaredFileSize: Int? = nil) -> Data {
        let rowBytes = (width * 3 + 3) / 4 * 4
        let pixels = [UInt8](repeating: 0x7F, count: rowBytes * abs(height))
        let fileSize = 14 + 40 + pixels.count
        var bytes = Array("BM".utf8) + u32le(declaredFileSize ?? fileSize) + [0, 0, 0, 0] + u32le(54)
        bytes += u32le(40) + u32le(width) + u32le(height & 0xFFFF_FFFF) + u16le(1) + u16le(24)
        bytes += u32le(0) + u32le(pixels.count) + u32le(2835) + u32le(2835) + u32le(0) + u32le(0)
        return Data(bytes + pixels)
    }

    /// A TIFF header and one IFD with ImageWidth (LONG) and ImageLength (SHORT).
    static func tiff(width: Int, height: Int, bigEndian: Bool) -> Data {
        let u16 = bigEndian ? u16be : u16le
        let u32 = bigEndian ? u32be : u32le
        var bytes: [UInt8] = bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]
        bytes += u32(8) + u16(3)
        bytes += u16(254) + u16(4) + u32(1) + u32(0) // NewSubfileType first: the walk skips it.
        bytes += u16(256) + u16(4) + u32(1) + u32(width)
        bytes += u16(257) + u16(3) + u32(1) + u16(height) + [0, 0]
        bytes += u32(0)
        return Data(bytes)
    }

    /// An icon with one entry per size (0 in the directory means 256), each with `payload` bytes.
    static func ico(sizes: [Int], payload: Int = 40, cutBy: Int = 0) -> Data {
        var bytes = [0, 0] + u16le(1) + u16le(sizes.count)
        var offset = 6 + 16 * sizes.count
        for size in sizes {
            let side = UInt8(size == 256 ? 0 : size)
            bytes += [side, side, 0, 0] + u16le(1) + u16le(32) + u32le(payload) + u32le(offset)
            offset += payload
        }
        bytes += [UInt8](repeating: 0x11, count: payload * sizes.count - cutBy)
        return Data(bytes)
    }
}

@Suite("Format parity with AsyncImage: BMP, TIFF, ICO and platform-decodable formats")
struct FormatParityTests {
    @Test("BMP is recognised with its size, bottom-up or top-down")
    func bmp() {
        #expect(ImageInfo(data: Bitmap.bmp(width: 31, height: 17)) == ImageInfo(format: .bmp, pixelSize: PixelSize(width: 31, height: 17)))
        #expect(ImageInfo(data: Bitmap.bmp(width: 5, height: -9))?.pixelSize == PixelSize(width: 5, height: 9))
        #expect(ImageFormat.bmp.mimeType == "image/bmp")
    }

    @Test("a BMP is complete only when its pixel rows have arrived")
    func bmpCompleteness() {
        let bmp = Bitmap.bmp(width: 8, height: 8)
        #expect(ImageInfo.isComplete(bmp, format: .bmp))
        #expect(!ImageInfo.isComplete(bmp.prefix(bmp.count - 1), format: .bmp))
    }

    @Test("text that starts with BM is not a bitmap")
    func bmLookalike() {
        #expect(ImageInfo(data: Data("BMW owners club: welcome to the forum".utf8)) == nil)
        #expect(ImageInfo(data: Data("BM".utf8)) == nil)
    }

    @Test("TIFF, little- and big-endian, reads its size from the first IFD", arguments: [false, true])
    func tiff(bigEndian: Bool) {
        let info = ImageInfo(data: Bitmap.tiff(width: 70_000, height: 300, bigEndian: bigEndian))
        #expect(info == ImageInfo(format: .tiff, pixelSize: PixelSize(width: 70_000, height: 300)))
        // Only the 8-byte header: recognised, size unknown.
        #expect(ImageInfo(data: Bitmap.tiff(width: 1, height: 1, bigEndian: bigEndian).prefix(8))?.format == .tiff)
    }

    @Test("ICO reports its largest entry (0 means 256) and is complete when every entry's data arrived")
    func ico() {
        let icon = Bitmap.ico(sizes: [16, 256, 32])
        #expect(ImageInfo(data: icon) == ImageInfo(format: .ico, pixelSize: PixelSize(width: 256, height: 256)))
        #expect(ImageInfo.isComplete(icon, format: .ico))
        #expect(!ImageInfo.isComplete(Bitmap.ico(sizes: [16, 32], cutBy: 1), format: .ico))
    }

    @Test("an icon entry is sized from the image it holds, not its directory's bytes: a 20000x20000 PNG behind 256x256 is caught")
    func icoSizedFromItsImages() {
        // One entry whose directory says 256x256 (0, 0); its data is a PNG signature and IHDR.
        let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Bitmap.u32be(13) + Array("IHDR".utf8)
            + Bitmap.u32be(20_000) + Bitmap.u32be(20_000) + [8, 6, 0, 0, 0]
        var bytes = [0, 0] + Bitmap.u16le(1) + Bitmap.u16le(1)
        bytes += [0, 0, 0, 0] + Bitmap.u16le(1) + Bitmap.u16le(32) + Bitmap.u32le(png.count) + Bitmap.u32le(22)
        #expect(ImageInfo(data: Data(bytes + png))?.pixelSize == PixelSize(width: 20_000, height: 20_000))
        // A DIB entry: its header's height counts colour and mask rows, twice the icon's.
        let dib = Bitmap.u32le(40) + Bitmap.u32le(48) + Bitmap.u32le(96) + Bitmap.u16le(1) + Bitmap.u16le(32) + [UInt8](repeating: 0, count: 24)
        var icon = [0, 0] + Bitmap.u16le(1) + Bitmap.u16le(1)
        icon += [16, 16, 0, 0] + Bitmap.u16le(1) + Bitmap.u16le(32) + Bitmap.u32le(dib.count) + Bitmap.u32le(22)
        #expect(ImageInfo(data: Data(icon + dib))?.pixelSize == PixelSize(width: 48, height: 48))
    }

    @Test("a decompression bomb in BMP or TIFF clothing is sized from its header")
    func bombs() {
        #expect(ImageInfo(data: Bitmap.bmp(width: 1, height: 1).prefix(54))?.pixelSize?.pixelCount == 1)
        var huge = Array(Bitmap.bmp(width: 1, height: 1))
        huge.replaceSubrange(18..<26, with: Bitmap.u32le(100_000) + Bitmap.u32le(100_000))
        #expect(ImageInfo(data: Data(huge))?.pixelSize == PixelSize(width: 100_000, height: 100_000))
    }

    @Test("bytes no decoder knows are still refused (on Linux there is no platform decoder)")
    func unknown() {
        #if !canImport(ImageIO)
        #expect(ImageInfo(data: Data("<html>502</html>".utf8)) == nil)
        #expect(ImageInfo(data: Data([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20])) == nil) // JPEG 2000 signature box
        #endif
    }
}

@Suite("Pipeline: BMP, TIFF and ICO load like PNG")
struct FormatParityPipelineTests {
    @Test("a BMP loads, is cached on disk, a bomb is refused, a wrong file-size field is not")
    @available(macOS 14.0, *)
    func pipeline() async throws {
        let fixture = try await PipelineFixture.start()
        let bmp = Bitmap.bmp(width: 12, height: 10)
        fixture.server.serve("/a.bmp", .ok(bmp, contentType: "image/bmp"))
        var huge = Array(Bitmap.bmp(width: 1, height: 1))
        huge.replaceSubrange(18..<26, with: Bitmap.u32le(100_000) + Bitmap.u32le(100_000))
        fixture.server.serve("/bomb.bmp", .ok(Data(huge), contentType: "image/bmp"))
        fixture.server.serve("/cut.bmp", .ok(Bitmap.bmp(width: 12, height: 10, declaredFileSize: bmp.count + 100), contentType: "image/bmp"))
        fixture.server.serve("/icon.ico", .ok(Bitmap.ico(sizes: [32]), contentType: "image/x-icon"))

        let pipeline = fixture.makePipeline()
        let response = try await pipeline.image(for: fixture.url("/a.bmp"))
        #expect(response.image.format == .bmp)
        #expect(response.image.data == bmp)
        #expect(try await pipeline.image(for: fixture.url("/icon.ico")).image.format == .ico)

        await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(for: fixture.url("/bomb.bmp")) }
        do {
            _ = try await pipeline.image(for: fixture.url("/bomb.bmp"))
        } catch let error as ImagePipeline.Error {
            guard case .imageTooLarge = error else { Issue.record("got \(error)"); return }
        }
        // A file-size field that overstates the file is a writer's slip decoders ignore: the
        // pixel rows are all there.
        #expect(try await pipeline.image(for: fixture.url("/cut.bmp")).image.pixelSize == PixelSize(width: 12, height: 10))

        // Relaunch: the BMP comes from disk.
        pipeline.diskCache?.flush()
        let relaunched = fixture.makePipeline()
        #expect(try await relaunched.image(for: fixture.url("/a.bmp")).source == .disk)
        await fixture.tearDown()
    }
}
