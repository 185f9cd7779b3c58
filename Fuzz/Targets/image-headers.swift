// Fuzz target "image-headers": what the pipeline runs on every downloaded, file and `data:` body
// before a decoder sees it (format sniffing, header dimensions, every container's completeness
// check, the response validator), the header decoder that answers on Linux, and the progressive
// JPEG scan detector that follows a body as it arrives (in chunks of several sizes), and the video
// container reader the registered video decoder runs on bodies the core does not recognise.
@testable import CachedImageCore
import Foundation
import ImageFixtures

enum FuzzTarget {
    static let url = URL(string: "https://fuzz.invalid/image")!
    static let validator = ResponseValidator(maximumPixelCount: 100_000_000)
    static let targets = [
        DecodingTarget(size: nil),
        DecodingTarget(size: PixelSize(width: 120, height: 80), contentMode: .aspectFill),
        DecodingTarget(size: PixelSize(width: 120, height: 80), contentMode: .aspectFit, maximumSize: PixelSize(width: 64, height: 64)),
    ]

    static func run(_ data: Data) {
        let info = ImageInfo(data: data)
        // Every container's check, not only the sniffed format's: each parser sees every input.
        for format in ImageFormat.allCases {
            _ = ImageInfo.containerCheck(data, format: format)
        }
        for transfer in [ResponseValidator.Transfer.mayBeCut, .complete] {
            _ = try? validator.validate(data, url: url, contentType: "image/png", expectedLength: nil, transfer: transfer)
        }
        for chunk in [1, 7, 512, max(1, data.count)] {
            var detector = ProgressiveScanDetector()
            var end = 0
            while end < data.count, !detector.isDone {
                end = min(data.count, end + chunk)
                detector.advance(data.prefix(end))
            }
        }
        _ = VideoContainer.matches(data)
        for target in targets {
            _ = VideoContainer.frameRequest(for: data, target: target)
        }
        guard let info else { return }
        _ = info.decodingSize
        for target in targets {
            _ = try? HeaderImageDecoder().decode(data, info: info, target: target)
        }
    }

    static func seeds() -> [String: Data] {
        var seeds: [String: Data] = [
            "png": ImageFixtures.png(width: 24, height: 16, seed: 1),
            "png-alpha": ImageFixtures.png(width: 9, height: 7, seed: 2, hasAlpha: true),
            "jpeg": ImageFixtures.jpeg(width: 24, height: 16, seed: 3, detail: 4),
            "gif": ImageFixtures.gif(width: 24, height: 16),
            "gif-oversized-frame": ImageFixtures.gifWithOversizedFrame(screen: 16, frameWidth: 40, frameHeight: 30),
            "apng": ImageFixtures.apng(width: 8, height: 8, delays: [(1, 10), (2, 10)]),
            "animated-gif": ImageFixtures.animatedGIF(width: 8, height: 8, delays: [5, 10]),
            "animated-webp": ImageFixtures.animatedWebP(width: 8, height: 8, durations: [50, 100]),
            "tiff": ImageFixtures.tiff(width: 12, height: 8),
            "bigtiff": ImageFixtures.tiff(width: 12, height: 8, big: true),
            "tiff-strips": ImageFixtures.tiffWithStripTablesLast(width: 12, height: 8, rowsPerStrip: 2),
            "bigtiff-strips": ImageFixtures.tiffWithStripTablesLast(width: 12, height: 8, rowsPerStrip: 3, big: true),
            "bmp": ImageFixtures.bmp(width: 10, height: 6),
            "ico": ImageFixtures.icoUnderstatingItsImage(listedSide: 16, width: 20, height: 20, headerOnly: false),
            "heic": heif(brand: "heic", codec: "hvcC"),
            "avif": heif(brand: "avif", codec: "av1C"),
            "mp4": movie(brand: "isom", quarterTurn: false),
            "mov-portrait": movie(brand: "qt  ", quarterTurn: true),
            "hostile-bigtiff": HostileImages.bigTIFFWithOverflowingDirectory,
            "hostile-ico-bitmap": HostileImages.icoWithOverflowingBitmap,
            "hostile-ico-shared-png": HostileImages.icoSharingOnePNG(entries: 20, emptyChunks: 30),
        ]
        for variant in ImageFixtures.Variant.allCases {
            seeds["variant-" + variant.rawValue] = variant.data
        }
        return seeds
    }

    /// A small video file: ftyp, moov (mvhd, an audio track's and a video track's tkhd), mdat.
    static func movie(brand: String, quarterTurn: Bool) -> Data {
        func u32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { u32(UInt32(8 + payload.count)) + Array(type.utf8) + payload }
        func tkhd(_ width: UInt32, _ height: UInt32) -> [UInt8] {
            let one: UInt32 = 0x10000
            let matrix: [UInt32] = quarterTurn ? [0, one, 0, UInt32(bitPattern: -0x10000), 0, 0, 0, 0, 0x4000_0000] : [one, 0, 0, 0, one, 0, 0, 0, 0x4000_0000]
            return box("tkhd", [0, 0, 0, 3] + [UInt8](repeating: 0, count: 36) + matrix.flatMap(u32) + u32(width << 16) + u32(height << 16))
        }
        let fileType = box("ftyp", Array(brand.utf8) + u32(0x200) + Array(brand.utf8) + Array("mp41".utf8))
        let movie = box("moov", box("mvhd", [UInt8](repeating: 0, count: 100)) + box("trak", tkhd(0, 0)) + box("trak", tkhd(1920, 1080)))
        return Data(fileType + movie + box("mdat", [UInt8](repeating: 0xAB, count: 32)))
    }

    /// A small HEIF file: ftyp, meta (pitm, iprp with ispe, a codec property, irot and clap,
    /// ipma, iloc placing item 1 in mdat), mdat.
    static func heif(brand: String, codec: String) -> Data {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: Int) -> [UInt8] { u16(value >> 16) + u16(value & 0xFFFF) }
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { u32(8 + payload.count) + Array(type.utf8) + payload }
        func fullBox(_ type: String, _ payload: [UInt8]) -> [UInt8] { box(type, [0, 0, 0, 0] + payload) }
        let properties = box("ipco", fullBox("ispe", u32(640) + u32(480)) + box(codec, [1, 2, 3, 4])
            + box("irot", [1]) + box("clap", u32(600) + u32(1) + u32(400) + u32(1) + u32(0) + u32(1) + u32(0) + u32(1)))
        let associations = fullBox("ipma", u32(1) + u16(1) + [4, 0x81, 0x82, 0x03, 0x04])
        let fileType = box("ftyp", Array(brand.utf8) + u32(0) + Array("mif1".utf8) + Array(brand.utf8))
        let payload = [UInt8](repeating: 0xAB, count: 32)
        func meta(mdatOffset: Int) -> [UInt8] {
            let location = fullBox("iloc", [0x44, 0x00] + u16(1) + u16(1) + u16(0) + u16(1) + u32(mdatOffset + 8) + u32(payload.count))
            return fullBox("meta", fullBox("hdlr", u32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
                + fullBox("pitm", u16(1)) + box("iprp", properties + associations) + location)
        }
        let mdatOffset = fileType.count + meta(mdatOffset: 0).count
        return Data(fileType + meta(mdatOffset: mdatOffset) + box("mdat", payload))
    }
}
