import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

// MARK: - Tests

@Suite("ImageInfo sniffing")
struct ImageInfoTests {
    /// One valid, complete sample of every format, with its expected size.
    static let samples: [(name: String, data: Data, format: ImageFormat, size: PixelSize)] = [
        ("png", ImageFixtures.png(width: 13, height: 7, seed: 1), .png, PixelSize(width: 13, height: 7)),
        ("jpeg", ImageFixtures.jpeg(width: 21, height: 9, seed: 2, detail: 5), .jpeg, PixelSize(width: 21, height: 9)),
        ("gif", ImageFixtures.gif(width: 17, height: 11), .gif, PixelSize(width: 17, height: 11)),
        ("webp-vp8", Build.riffWebP([("VP8 ", Build.vp8(width: 640, height: 480))]), .webp, PixelSize(width: 640, height: 480)),
        ("webp-vp8l", Build.riffWebP([("VP8L", Build.vp8l(width: 300, height: 201))]), .webp, PixelSize(width: 300, height: 201)),
        ("webp-vp8x", Build.riffWebP([("VP8X", Build.vp8x(width: 5000, height: 3000)),
                                      ("VP8 ", Build.vp8(width: 5000 & 0x3FFF, height: 3000))]),
         .webp, PixelSize(width: 5000, height: 3000)),
        ("heic", Build.heic, .heic, PixelSize(width: 4032, height: 3024)),
        ("avif", Build.avif, .avif, PixelSize(width: 1920, height: 1080)),
    ]

    @Test("Every format's sample is recognised with its size and is complete", arguments: 0..<samples.count)
    func recognisesSample(index: Int) throws {
        let sample = Self.samples[index]
        let info = try #require(ImageInfo(data: sample.data), "\(sample.name)")
        #expect(info == ImageInfo(format: sample.format, pixelSize: sample.size), "\(sample.name)")
        #expect(ImageInfo.isComplete(sample.data, format: sample.format), "\(sample.name)")
    }

    @Test("Sniffing works on a Data slice whose startIndex is not zero")
    func sliceWithOffsetStartIndex() throws {
        for sample in Self.samples {
            let padded = Data([1, 2, 3, 4, 5]) + sample.data + Data([9])
            let slice = padded[5..<(5 + sample.data.count)]
            #expect(slice.startIndex == 5)
            #expect(ImageInfo(data: slice) == ImageInfo(format: sample.format, pixelSize: sample.size), "\(sample.name)")
            #expect(ImageInfo.isComplete(slice, format: sample.format), "\(sample.name)")
        }
    }

    @Test("Non-images are not recognised", arguments: [
        Data(),
        Data("<!DOCTYPE html><html><body>Not found</body></html>".utf8),
        Data(#"{"error": "not an image"}"#.utf8),
        Data([0x89, 0x50, 0x4E]),                              // A PNG signature cut short.
        Data([0xFF, 0xD8]),                                    // Two bytes of JPEG.
        Data("GIF88a".utf8 + [1, 0, 1, 0]),                    // Not a GIF version.
        Data("RIFF".utf8 + [4, 0, 0, 0] + "WAVEfmt ".utf8),    // RIFF, but audio.
        Data(Build.ftyp(major: "isom", compatible: ["isom", "mp42"]) + Build.box("moov", [])), // MP4.
        Data(Build.ftyp(major: "qt  ", compatible: ["qt  "])), // QuickTime.
        Data([0x00, 0x00, 0x00, 0x08] + Array("ftyp".utf8)),   // ftyp too small to hold a brand.
    ])
    func rejectsNonImages(data: Data) {
        #expect(ImageInfo(data: data) == nil)
    }

    @Test("Random bytes are not recognised")
    func rejectsRandomBytes() {
        var random = SeededRandom(seed: 42)
        for _ in 0..<500 {
            var bytes = random.bytes(random.next(below: 200))
            // Make sure no sample accidentally starts with a real signature byte.
            if let first = bytes.first, [0x89, 0xFF, 0x47, 0x52].contains(first) { bytes[0] = 0x00 }
            if bytes.count >= 8 { bytes[4] = 0x00 } // No "ftyp" at 4.
            #expect(ImageInfo(data: Data(bytes)) == nil)
        }
    }

    // MARK: PNG

    @Test("A 20000x20000 PNG header is sized without decoding anything")
    func decompressionBombHeader() throws {
        let header = ImageFixtures.pngHeader(width: 20_000, height: 20_000)
        #expect(header.count == 33) // Signature + IHDR only: no pixels exist to allocate.
        let info = try #require(ImageInfo(data: header))
        #expect(info.format == .png)
        #expect(info.pixelSize == PixelSize(width: 20_000, height: 20_000))
        #expect(info.pixelSize?.pixelCount == 400_000_000)
        #expect(!ImageInfo.isComplete(header, format: .png))
    }

    @Test("A PNG whose first chunk is not IHDR, or whose size is out of range, has no size")
    func pngWithoutUsableIHDR() {
        var notIHDR = [UInt8](ImageFixtures.pngHeader(width: 10, height: 10))
        notIHDR[12...15] = ArraySlice("IDAT".utf8)
        #expect(ImageInfo(data: Data(notIHDR)) == ImageInfo(format: .png, pixelSize: nil))

        var huge = [UInt8](ImageFixtures.pngHeader(width: 10, height: 10))
        huge[16...19] = [0xFF, 0xFF, 0xFF, 0xFF]
        #expect(ImageInfo(data: Data(huge)) == ImageInfo(format: .png, pixelSize: nil))

        var zero = [UInt8](ImageFixtures.pngHeader(width: 10, height: 10))
        zero[20...23] = [0, 0, 0, 0]
        #expect(ImageInfo(data: Data(zero)) == ImageInfo(format: .png, pixelSize: nil))
    }

    @Test("PNG completeness follows the chunk chain to IEND")
    func pngCompleteness() {
        let png = ImageFixtures.png(width: 8, height: 8, seed: 3)
        #expect(ImageInfo.isComplete(png, format: .png))
        #expect(ImageInfo.isComplete(png + Data(repeating: 0, count: 10), format: .png)) // Trailing bytes.
        var brokenLength = [UInt8](png)
        brokenLength[33...36] = [0x7F, 0xFF, 0xFF, 0x00] // First IDAT claims ~2 GB.
        #expect(!ImageInfo.isComplete(Data(brokenLength), format: .png))
        #expect(!ImageInfo.isComplete(png, format: .jpeg)) // Wrong format.
    }

    // MARK: JPEG

    @Test("JPEG marker walk skips fill bytes, standalone markers, APPn, DHT, JPG and DAC")
    func jpegMarkerWalk() throws {
        let app1 = [0xFF, 0xE1] + Build.u16be(2 + 6) + [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00] // Looks like SOF inside.
        let dht = [0xFF, 0xC4] + Build.u16be(2 + 7) + [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
        let jpg = [0xFF, 0xC8] + Build.u16be(2 + 5) + [0x08, 0x00, 0x10, 0x00, 0x10]
        let dac = [0xFF, 0xCC] + Build.u16be(2 + 5) + [0x08, 0x00, 0x20, 0x00, 0x20]
        let fillAndStandalone: [UInt8] = [0xFF, 0xFF, 0xFF, 0x01, 0xFF, 0xD3]
        let sof2 = [0xFF, 0xFF, 0xC2] + Build.u16be(11) + [0x08] + Build.u16be(1234) + Build.u16be(4321) + [0x01, 0x01, 0x11, 0x00]
        let bytes: [UInt8] = [0xFF, 0xD8] + app1 + fillAndStandalone + dht + jpg + dac + sof2 + [0xFF, 0xD9]
        let info = try #require(ImageInfo(data: Data(bytes)))
        #expect(info.format == .jpeg)
        #expect(info.pixelSize == PixelSize(width: 4321, height: 1234))
    }

    @Test("Stray bytes and a stuffed FF 00 before the frame header are skipped, as libjpeg does: the size is found, and the pixel limit applies")
    func jpegStrayBytesBeforeFrame() throws {
        let app0 = [0xFF, 0xE0] + Build.u16be(16) + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        let sof0 = [0xFF, 0xC0] + Build.u16be(11) + [8] + Build.u16be(20_000) + Build.u16be(20_000) + [1, 1, 0x11, 0]
        let scan = [0xFF, 0xDA] + Build.u16be(8) + [1, 1, 0, 0, 0x3F, 0] + [0x12, 0x34] + [0xFF, 0xD9]
        for stray: [UInt8] in [[0x00], [0x12, 0x34, 0x56], [0xFF, 0x00]] {
            let data = Data([0xFF, 0xD8] + app0 + stray + sof0 + scan)
            #expect(ImageInfo(data: data) == ImageInfo(format: .jpeg, pixelSize: PixelSize(width: 20_000, height: 20_000)))
            #expect(throws: ImagePipeline.Error.self) {
                _ = try ResponseValidator(maximumPixelCount: 1_000_000).validate(
                    data, url: URL(string: "https://example.com/bomb.jpg")!, contentType: "image/jpeg", expectedLength: nil, transfer: .complete
                )
            }
        }
    }

    @Test("A JPEG that reaches a scan or EOI before any frame header has no size")
    func jpegWithoutFrame() {
        let scanFirst: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9]
        #expect(ImageInfo(data: Data(scanFirst)) == ImageInfo(format: .jpeg, pixelSize: nil))
        let garbage: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00, 0x12, 0x34]
        #expect(ImageInfo(data: Data(garbage)) == ImageInfo(format: .jpeg, pixelSize: nil))
        let shortLength: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0xFF, 0xC0]
        #expect(ImageInfo(data: Data(shortLength)) == ImageInfo(format: .jpeg, pixelSize: nil))
    }

    @Test("JPEG completeness tolerates trailing bytes after EOI")
    func jpegTrailingBytes() {
        let jpeg = ImageFixtures.jpeg(width: 16, height: 16, seed: 4)
        #expect(ImageInfo.isComplete(jpeg + Data(repeating: 0, count: 3), format: .jpeg))
        // A vendor trailer much longer than a little padding is still after a complete stream.
        #expect(ImageInfo.isComplete(jpeg + Data(repeating: 0x41, count: 5000), format: .jpeg))
        #expect(!ImageInfo.isComplete(jpeg.dropLast(2), format: .jpeg))
    }

    @Test("JPEG completeness skips stuffed bytes and restart markers inside scan data")
    func jpegScanWithRestartMarkers() {
        let sof0 = [0xFF, 0xC0] + Build.u16be(11) + [0x08] + Build.u16be(16) + Build.u16be(16) + [0x01, 0x01, 0x11, 0x00]
        let dri = [0xFF, 0xDD] + Build.u16be(4) + Build.u16be(1)
        let sos: [UInt8] = [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]
        let scan: [UInt8] = [0x12, 0x34, 0xFF, 0xD0, 0x56, 0xFF, 0x00, 0x78, 0xFF, 0xD1, 0x9A, 0xFF, 0xFF, 0xD9]
        let jpeg = Data([0xFF, 0xD8] + sof0 + dri + sos + scan)
        // A long trailer rules out the "EOI near the end" fallback: only a correct walk passes.
        let trailer = Data(repeating: 0x20, count: 200)
        #expect(ImageInfo.isComplete(jpeg + trailer, format: .jpeg))
        #expect(!ImageInfo.isComplete(jpeg.dropLast(2) + trailer, format: .jpeg))
        #expect(ImageInfo(data: jpeg)?.pixelSize == PixelSize(width: 16, height: 16))
    }

    @Test("A JPEG cut right after an embedded thumbnail's EOI is incomplete")
    func jpegThumbnailEOIIsNotTheEnd() {
        let thumbnail = ImageFixtures.jpeg(width: 8, height: 8, seed: 5)
        let app1Payload = Array("Exif".utf8) + [0, 0] + [UInt8](thumbnail)
        let app1 = [0xFF, 0xE1] + Build.u16be(2 + app1Payload.count) + app1Payload
        let main = [UInt8](ImageFixtures.jpeg(width: 32, height: 32, seed: 6))
        let full = Data([0xFF, 0xD8] + app1 + main.dropFirst(2))
        #expect(ImageInfo(data: full)?.pixelSize == PixelSize(width: 32, height: 32))
        #expect(ImageInfo.isComplete(full, format: .jpeg))
        let cutAfterThumbnail = full.prefix(2 + app1.count)
        #expect(cutAfterThumbnail.suffix(2) == Data([0xFF, 0xD9]))
        #expect(!ImageInfo.isComplete(cutAfterThumbnail, format: .jpeg))
    }

    @Test("A malformed JPEG falls back to looking for EOI near the end")
    func jpegMalformedFallback() {
        let malformed: [UInt8] = [0xFF, 0xD8, 0x12, 0x34, 0x56, 0xFF, 0xD9, 0x00]
        #expect(ImageInfo.isComplete(Data(malformed), format: .jpeg))
        let noEOI: [UInt8] = [0xFF, 0xD8, 0x12, 0x34, 0x56, 0x78, 0x9A]
        #expect(!ImageInfo.isComplete(Data(noEOI), format: .jpeg))
    }

    // MARK: GIF

    @Test("GIF87a and GIF89a are both recognised")
    func gifVersions() {
        var gif87 = [UInt8](ImageFixtures.gif(width: 300, height: 2))
        gif87[4] = UInt8(ascii: "7")
        #expect(ImageInfo(data: Data(gif87)) == ImageInfo(format: .gif, pixelSize: PixelSize(width: 300, height: 2)))
        #expect(ImageInfo.isComplete(Data(gif87), format: .gif))
    }

    @Test("GIF completeness needs the trailer after the last block, not just a 0x3B byte")
    func gifTrailer() {
        let gif = ImageFixtures.gif(width: 40, height: 40)
        #expect(ImageInfo.isComplete(gif, format: .gif))
        var wrongEnd = [UInt8](gif.dropLast(2)) // Drop the block terminator and trailer...
        wrongEnd.append(0x3B)                   // ...and end on a 0x3B that is a sub-block byte.
        #expect(!ImageInfo.isComplete(Data(wrongEnd), format: .gif))
    }

    // MARK: WebP

    @Test("WebP sizes: VP8 scale bits are ignored, maximum VP8L and VP8X sizes")
    func webPEdgeSizes() {
        let scaled = Build.riffWebP([("VP8 ", Build.vp8(width: 100, height: 50, scale: 3))])
        #expect(ImageInfo(data: scaled)?.pixelSize == PixelSize(width: 100, height: 50))
        let lossless = Build.riffWebP([("VP8L", Build.vp8l(width: 16384, height: 16384))])
        #expect(ImageInfo(data: lossless)?.pixelSize == PixelSize(width: 16384, height: 16384))
        let extended = Build.riffWebP([("VP8X", Build.vp8x(width: 1 << 24, height: 1))])
        #expect(ImageInfo(data: extended)?.pixelSize == PixelSize(width: 1 << 24, height: 1))
    }

    @Test("WebP with an unknown first chunk or a non-key frame is WebP without a size")
    func webPWithoutSize() {
        let unknown = Build.riffWebP([("ALPH", [1, 2, 3, 4])])
        #expect(ImageInfo(data: unknown) == ImageInfo(format: .webp, pixelSize: nil))
        let interFrame = Build.riffWebP([("VP8 ", Build.vp8(width: 10, height: 10, keyFrame: false))])
        #expect(ImageInfo(data: interFrame) == ImageInfo(format: .webp, pixelSize: nil))
        var badSignature = [UInt8](Build.riffWebP([("VP8L", Build.vp8l(width: 10, height: 10))]))
        badSignature[20] = 0x00
        #expect(ImageInfo(data: Data(badSignature)) == ImageInfo(format: .webp, pixelSize: nil))
    }

    @Test("WebP completeness compares the RIFF size with the byte count, allowing one pad byte")
    func webPCompleteness() {
        let webP = Build.riffWebP([("VP8L", Build.vp8l(width: 3, height: 3))])
        #expect(ImageInfo.isComplete(webP, format: .webp))
        #expect(ImageInfo.isComplete(webP + Data([0]), format: .webp))
        #expect(!ImageInfo.isComplete(webP + Data([0, 0]), format: .webp))
        #expect(!ImageInfo.isComplete(webP.dropLast(), format: .webp))
    }

    // MARK: HEIC / AVIF

    @Test("HEIF brands decide the format; generic mif1 falls back to the codec property", arguments: [
        (["heix"], "heix", nil as [UInt8]?, ImageFormat.heic as ImageFormat?),
        (["mif1", "hevc"], "msf1", nil, .heic),
        (["mif1", "avis"], "msf1", nil, .avif),
        (["mif1", "miaf"], "mif1", Build.hvcC, .heic),
        (["mif1", "miaf"], "mif1", Build.av1C, .avif),
        (["mif1", "miaf"], "mif1", nil, nil),         // Codec unknown (could be JPEG in HEIF).
        (["mif1", "heic"], "avif", Build.hvcC, .avif), // The major brand wins.
    ])
    func heifBrands(compatible: [String], major: String, codec: [UInt8]?, expected: ImageFormat?) {
        let data = Build.heif(
            major: major, compatible: compatible,
            properties: (codec.map { [$0] } ?? []) + [Build.ispe(64, 48)],
            associations: [(1, codec == nil ? [1] : [0x81, 2])]
        )
        let info = ImageInfo(data: data)
        #expect(info?.format == expected)
        if expected != nil {
            #expect(info?.pixelSize == PixelSize(width: 64, height: 48))
        }
    }

    @Test("The HEIF size is the primary item's ispe, else the largest")
    func heifPrimaryItem() {
        let properties = [Build.hvcC, Build.ispe(4032, 3024), Build.ispe(320, 240)]
        let associations: [(item: Int, properties: [Int])] = [(1, [0x81, 2]), (2, [0x81, 3])]
        let thumbnailPrimary = Build.heif(primary: 2, properties: properties, associations: associations)
        #expect(ImageInfo(data: thumbnailPrimary)?.pixelSize == PixelSize(width: 320, height: 240))

        let noPitm = Build.heif(primary: nil, properties: [Build.hvcC, Build.ispe(320, 240), Build.ispe(4032, 3024)],
                                associations: associations)
        #expect(ImageInfo(data: noPitm)?.pixelSize == PixelSize(width: 4032, height: 3024))

        let noIpma = Build.heif(properties: [Build.hvcC, Build.ispe(320, 240), Build.ispe(800, 600)], associations: nil)
        #expect(ImageInfo(data: noIpma)?.pixelSize == PixelSize(width: 800, height: 600))

        let noISPE = Build.heif(properties: [Build.hvcC], associations: [(1, [0x81])])
        #expect(ImageInfo(data: noISPE) == ImageInfo(format: .heic, pixelSize: nil))
    }

    @Test("A HEIF's clean aperture (clap) and rotation (irot) give the displayed size; the pixel limit counts the coded ispe")
    func heifCleanApertureAndRotation() throws {
        // clap: width 451/1, height 461/1, offsets 0/1 (as a 452x462 iPhone HEIC has).
        let clap = Build.box("clap", Build.u32be(451) + Build.u32be(1) + Build.u32be(461) + Build.u32be(1)
                             + Build.u32be(0) + Build.u32be(1) + Build.u32be(0) + Build.u32be(1))
        let irot = Build.box("irot", [0x01]) // A quarter turn.
        let imir = Build.box("imir", [0x00])
        let cropped = Build.heif(properties: [Build.hvcC, Build.ispe(452, 462), clap], associations: [(1, [0x81, 2, 0x83])])
        let info = try #require(ImageInfo(data: cropped))
        #expect(info.pixelSize == PixelSize(width: 451, height: 461))
        #expect(info.decodingSize == PixelSize(width: 452, height: 462))

        let turned = Build.heif(properties: [Build.hvcC, Build.ispe(4032, 3024), clap, irot, imir],
                                associations: [(1, [0x81, 2, 0x83, 0x84, 0x85])])
        #expect(ImageInfo(data: turned)?.pixelSize == PixelSize(width: 461, height: 451))
        let turnedOnly = Build.heif(properties: [Build.hvcC, Build.ispe(4032, 3024), irot], associations: [(1, [0x81, 2, 0x83])])
        #expect(ImageInfo(data: turnedOnly)?.pixelSize == PixelSize(width: 3024, height: 4032))
        // A thumbnail's clap says nothing about the primary item.
        let elsewhere = Build.heif(properties: [Build.hvcC, Build.ispe(800, 600), clap], associations: [(1, [0x81, 2]), (2, [3])])
        #expect(ImageInfo(data: elsewhere)?.pixelSize == PixelSize(width: 800, height: 600))
        // A crop cannot hide a coded bomb from the limit.
        let bomb = Build.heif(properties: [Build.hvcC, Build.ispe(20_000, 20_000), clap], associations: [(1, [0x81, 2, 0x83])])
        #expect(ImageInfo(data: bomb)?.decodingSize == PixelSize(width: 20_000, height: 20_000))
    }

    @Test("A HEIF prefix cut inside meta, after a thumbnail's ispe and before the primary's, has no size yet, so a download's early pixel check waits")
    func heifPrefixWaitsForThePrimarySize() throws {
        // The thumbnail's ispe comes first; the primary item (1) has the 20000x20000 one.
        let data = Build.heif(
            properties: [Build.hvcC, Build.ispe(64, 64), Build.ispe(20_000, 20_000)],
            associations: [(1, [0x81, 3]), (2, [0x81, 2])]
        )
        #expect(ImageInfo(data: data)?.pixelSize == PixelSize(width: 20_000, height: 20_000))
        let bytes = [UInt8](data)
        let primaryISPE = Build.ispe(20_000, 20_000)
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: primaryISPE) })
        // Cut right after the 64x64 ispe: before, the largest ispe so far (64x64) was the size,
        // and a download's one early pixel check let the 20000x20000 image through.
        #expect(ImageInfo(data: data.prefix(start)) == ImageInfo(format: .heic, pixelSize: nil))
    }

    @Test("ipma with 32-bit item IDs and 16-bit property indices is understood")
    func heifWideIpma() {
        let ftyp = Build.ftyp(major: "avif", compatible: ["mif1", "avif"])
        let hdlr = Build.fullBox("hdlr", Build.u32be(0) + Build.ascii("pict") + [UInt8](repeating: 0, count: 13))
        let pitm = Build.fullBox("pitm", version: 1, Build.u32be(70_000))
        let ipco = Build.box("ipco", Build.av1C + Build.ispe(10, 10) + Build.ispe(3000, 2000))
        // version 1 (32-bit IDs), flags 1 (16-bit indices); the primary item uses property 2 (10x10).
        let ipma = Build.fullBox("ipma", version: 1, flags: 1,
                                 Build.u32be(2)
                                 + Build.u32be(5) + [1] + Build.u16be(3)
                                 + Build.u32be(70_000) + [2] + Build.u16be(0x8001) + Build.u16be(2))
        let meta = Build.fullBox("meta", hdlr + pitm + Build.box("iprp", ipco + ipma))
        let data = Data(ftyp + meta)
        #expect(ImageInfo(data: data) == ImageInfo(format: .avif, pixelSize: PixelSize(width: 10, height: 10)))
    }

    @Test("meta after a 64-bit mdat box is still found")
    func heifLargeSizeBoxBeforeMeta() {
        let ftyp = Build.ftyp(major: "heic", compatible: ["mif1", "heic"])
        let payload = [UInt8](repeating: 0x33, count: 24)
        let mdat = Build.u32be(1) + Build.ascii("mdat") + [0, 0, 0, 0] + Build.u32be(16 + payload.count) + payload
        let meta = Build.fullBox("meta", Build.box("iprp", Build.box("ipco", Build.hvcC + Build.ispe(99, 77))))
        let data = Data(ftyp + mdat + meta)
        #expect(ImageInfo(data: data) == ImageInfo(format: .heic, pixelSize: PixelSize(width: 99, height: 77)))
        #expect(ImageInfo.isComplete(data, format: .heic))
    }

    @Test("HEIF completeness adds up top-level box sizes; size 0 runs to the end")
    func heifCompleteness() {
        #expect(ImageInfo.isComplete(Build.heic, format: .heic))
        #expect(!ImageInfo.isComplete(Build.heic + Data([0, 0, 0]), format: .heic))
        var toEnd = [UInt8](Build.heic)
        let mdatStart = toEnd.count - 48
        #expect(Array(toEnd[(mdatStart + 4)..<(mdatStart + 8)]) == Array("mdat".utf8))
        toEnd[mdatStart..<(mdatStart + 4)] = [0, 0, 0, 0]
        #expect(ImageInfo.isComplete(Data(toEnd) + Data(repeating: 1, count: 100), format: .heic))
        #expect(!ImageInfo.isComplete(Build.heic, format: .webp))
    }

    @Test(
        "An iloc whose extents take no bytes (all field sizes 0) is read in time linear in its size, not items x 65,535 extents",
        .timeLimit(.minutes(1))
    )
    func ilocWithZeroSizeExtents() {
        // 65,535 items of 65,535 zero-byte extents each, in 393 KB: before the fix, 4.3 billion
        // extent reads (9.4 s in a release build, about 20 minutes in a debug one).
        var items = Build.u16be(65_535)
        for item in 1...65_535 { items += Build.u16be(item) + Build.u16be(0) + Build.u16be(0xFFFF) }
        let iloc = Build.fullBox("iloc", [0x00, 0x00] + items)
        let data = Data(Build.ftyp(major: "heic", compatible: ["mif1", "heic"]) + Build.fullBox("meta", iloc))
        #expect(ImageInfo(data: data)?.format == .heic)
        #expect(ImageInfo.isComplete(data, format: .heic))
    }

    // MARK: Truncation and fuzzing

    @Test("Every prefix of every sample: no crash, never complete, size only once its bytes arrived")
    func everyPrefix() {
        for sample in Self.samples {
            var sizedFrom: Int?
            for length in 0..<sample.data.count {
                let prefix = sample.data.prefix(length)
                #expect(!ImageInfo.isComplete(prefix, format: sample.format), "\(sample.name) at \(length)")
                guard let info = ImageInfo(data: prefix) else {
                    #expect(sizedFrom == nil, "\(sample.name) stopped being recognised at \(length)")
                    continue
                }
                #expect(info.format == sample.format, "\(sample.name) at \(length)")
                if let size = info.pixelSize {
                    #expect(size == sample.size, "\(sample.name) at \(length)")
                    sizedFrom = sizedFrom ?? length
                } else if sample.format != .heic, sample.format != .avif {
                    // Sizes come from a fixed header position, so once known they stay known.
                    #expect(sizedFrom == nil, "\(sample.name) lost its size at \(length)")
                }
            }
            #expect(sizedFrom != nil, "\(sample.name) never got a size from a prefix")
        }
        // The fixed-position headers are sized exactly when their size field is complete.
        let png = ImageFixtures.png(width: 5, height: 6, seed: 0)
        #expect(ImageInfo(data: png.prefix(23))?.pixelSize == nil)
        #expect(ImageInfo(data: png.prefix(24))?.pixelSize == PixelSize(width: 5, height: 6))
        let gif = ImageFixtures.gif(width: 5, height: 6)
        #expect(ImageInfo(data: gif.prefix(9))?.pixelSize == nil)
        #expect(ImageInfo(data: gif.prefix(10))?.pixelSize == PixelSize(width: 5, height: 6))
        // What is decoded is known once the first image descriptor arrived (6 + 7 + 12 + 10 bytes).
        #expect(ImageInfo(data: gif.prefix(34))?.decodingSize == nil)
        #expect(ImageInfo(data: gif.prefix(35))?.decodingSize == PixelSize(width: 5, height: 6))
    }

    @Test("Fuzz: mutated and spliced samples never crash")
    func fuzz() {
        var random = SeededRandom(seed: 0xC0FFEE)
        let signatures: [[UInt8]] = [
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], [0xFF, 0xD8, 0xFF], Array("GIF89a".utf8),
            Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("WEBPVP8X".utf8),
            [0, 0, 0, 0x18] + Array("ftypheic".utf8), [0, 0, 0, 0x10] + Array("ftypmif1".utf8),
        ]
        var recognised = 0
        for iteration in 0..<3000 {
            var bytes: [UInt8]
            switch iteration % 3 {
            case 0: // A valid sample with a few bytes flipped, maybe truncated.
                bytes = [UInt8](Self.samples[random.next(below: Self.samples.count)].data)
                for _ in 0..<(1 + random.next(below: 6)) {
                    bytes[random.next(below: bytes.count)] = UInt8(truncatingIfNeeded: random.next())
                }
                bytes = Array(bytes.prefix(random.next(below: bytes.count + 1)))
            case 1: // A real signature followed by noise.
                bytes = signatures[random.next(below: signatures.count)] + random.bytes(random.next(below: 120))
            default: // Pure noise, sometimes with 0xFF-heavy content to stress the JPEG walk.
                bytes = random.bytes(random.next(below: 300))
                if random.next(below: 2) == 0 { bytes = bytes.map { $0 | 0xF0 } }
            }
            let data = Data(bytes)
            if ImageInfo(data: data) != nil { recognised += 1 }
            for format in ImageFormat.allCases {
                _ = ImageInfo.isComplete(data, format: format)
            }
        }
        #expect(recognised > 1000) // The mutations did exercise the parsers, not just the rejects.
    }
}
