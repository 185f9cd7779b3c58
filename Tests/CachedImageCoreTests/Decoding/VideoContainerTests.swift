import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// ISO-BMFF video files built box by box: `ftyp`, then `moov` with tracks (`tkhd`), then `mdat`.
enum VideoBytes {
    static func u32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func box(_ type: String, _ content: [UInt8]) -> [UInt8] {
        u32(UInt32(8 + content.count)) + Array(type.utf8) + content
    }

    static func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        box("ftyp", Array(major.utf8) + u32(0x200) + compatible.flatMap { Array($0.utf8) })
    }

    /// A track header of `width` x `height` (zero for an audio track), turned a quarter when asked.
    static func tkhd(width: Int, height: Int, quarterTurn: Bool = false, version: UInt8 = 0) -> [UInt8] {
        var content: [UInt8] = [version, 0, 0, 3]
        content += [UInt8](repeating: 0, count: version == 1 ? 32 : 20) // Times, track ID, duration.
        content += [UInt8](repeating: 0, count: 16) // Reserved, layer, group, volume, reserved.
        let one: UInt32 = 0x10000, minusOne = UInt32(bitPattern: -0x10000)
        let matrix: [UInt32] = quarterTurn
            ? [0, one, 0, minusOne, 0, 0, 0, 0, 0x4000_0000]
            : [one, 0, 0, 0, one, 0, 0, 0, 0x4000_0000]
        content += matrix.flatMap(u32)
        content += u32(UInt32(width) << 16) + u32(UInt32(height) << 16)
        return box("tkhd", content)
    }

    /// A movie: `ftyp` (unless `nil`), `moov` with a header and these tracks, and some media data;
    /// `moov` after `mdat` when `moovLast` (a file not prepared for streaming).
    static func movie(brands: (String, [String])? = ("isom", ["isom", "iso2", "avc1", "mp41"]), tracks: [[UInt8]], moovLast: Bool = false) -> Data {
        let moov = box("moov", box("mvhd", [UInt8](repeating: 0, count: 100)) + tracks.flatMap { box("trak", $0 + box("mdia", [])) })
        let mdat = box("mdat", [UInt8](repeating: 0xAB, count: 64))
        let head = brands.map { ftyp($0.0, $0.1) } ?? []
        return Data(head + (moovLast ? mdat + moov : moov + mdat))
    }

    static let hd = movie(tracks: [tkhd(width: 0, height: 0), tkhd(width: 1920, height: 1080)])
}

@Suite("Video thumbnails: which bytes are a video, and the size AVFoundation is asked for")
struct VideoContainerTests {
    @Test("MP4, QuickTime, M4V and 3GPP brands are videos, under the extension AVFoundation reads them by")
    func videoBrands() throws {
        let cases: [((String, [String]), VideoContainer.Kind)] = [
            (("isom", ["isom", "iso2", "avc1", "mp41"]), .mp4),
            (("mp42", ["mp42", "mp41"]), .mp4),
            (("qt  ", ["qt  "]), .mov),
            (("M4V ", ["M4V ", "M4A ", "mp42", "isom"]), .m4v),
            (("3gp4", ["3gp4", "isom"]), .threeGPP),
            (("XAVC", ["XAVC", "mp42", "iso2"]), .mp4), // An unknown major brand, a video compatible one.
            (("iso8", ["iso8", "cmfc"]), .mp4),
            (("cmfc", ["iso9", "cmfc"]), .mp4),
            (("XYZ1", ["iso7"]), .mp4),
        ]
        for (brands, kind) in cases {
            let data = VideoBytes.movie(brands: brands, tracks: [VideoBytes.tkhd(width: 640, height: 360)])
            #expect(VideoContainer.matches(data), "\(brands)")
            #expect(VideoContainer(data: data)?.kind == kind, "\(brands)")
        }
        let classic = VideoBytes.movie(brands: nil, tracks: [VideoBytes.tkhd(width: 640, height: 360)])
        #expect(VideoContainer(data: classic)?.kind == .mov, "a QuickTime movie without ftyp")
        for first in ["free", "skip", "pnot"] {
            let padded = Data(VideoBytes.box(first, [0, 0, 0, 0])) + classic
            #expect(VideoContainer(data: padded)?.kind == .mov, "a QuickTime movie starting with \(first)")
        }
        #expect(VideoContainer.Kind.threeGPP.fileExtension == "3gp")
    }

    @Test("HEIC and AVIF, ISO-BMFF too, are images whatever else they list; other bytes are not videos")
    func imagesAreNotVideos() {
        let images: [(String, [String])] = [
            ("heic", ["mif1", "heic"]),
            ("mif1", ["mif1", "heic", "miaf", "MiHB"]),
            ("avif", ["avif", "mif1", "miaf", "MA1B"]),
            ("avis", ["avis", "msf1", "iso8", "mif1", "miaf"]),
            ("msf1", ["msf1", "iso8", "isom"]), // A HEIF image sequence.
            ("isom", ["isom", "mif1"]),
        ]
        for brands in images {
            let data = VideoBytes.movie(brands: brands, tracks: [VideoBytes.tkhd(width: 640, height: 360)])
            #expect(!VideoContainer.matches(data), "\(brands)")
            #expect(VideoContainer(data: data) == nil, "\(brands)")
        }
        for other in [ImageFixtures.png(width: 4, height: 4), Data("<svg/>".utf8), Data(), Data([0, 0, 0, 8, 0x66, 0x74])] {
            #expect(!VideoContainer.matches(other))
            #expect(VideoContainer(data: other) == nil)
        }
    }

    @Test("the size is the first sized track's (audio skipped), its quarter turn applied, wherever moov is")
    func presentationSize() {
        #expect(VideoContainer(data: VideoBytes.hd)?.presentationSize == PixelSize(width: 1920, height: 1080))
        let portrait = VideoBytes.movie(tracks: [VideoBytes.tkhd(width: 1920, height: 1080, quarterTurn: true)], moovLast: true)
        #expect(VideoContainer(data: portrait)?.presentationSize == PixelSize(width: 1080, height: 1920))
        let version1 = VideoBytes.movie(tracks: [VideoBytes.tkhd(width: 1280, height: 720, version: 1)])
        #expect(VideoContainer(data: version1)?.presentationSize == PixelSize(width: 1280, height: 720))
        // Cut before moov: a video of unknown size.
        let cut = VideoBytes.hd.prefix(40)
        #expect(VideoContainer(data: cut)?.presentationSize == nil)
        #expect(VideoContainer(data: cut)?.kind == .mp4)
    }

    @Test("AVFoundation is asked for the request's decoded size: fill or fit, never upscaled, the cap applied")
    func maximumSize() throws {
        let video = try #require(VideoContainer(data: VideoBytes.hd))
        let fill = DecodingTarget(size: PixelSize(width: 320, height: 200), contentMode: .aspectFill)
        #expect(video.maximumSize(for: fill) == PixelSize(width: 356, height: 200))
        let fit = DecodingTarget(size: PixelSize(width: 320, height: 320), contentMode: .aspectFit)
        #expect(video.maximumSize(for: fit) == PixelSize(width: 320, height: 180))
        let capped = DecodingTarget(size: nil, maximumSize: PixelSize(width: 960, height: 960))
        #expect(video.maximumSize(for: capped) == PixelSize(width: 960, height: 540))
        let larger = DecodingTarget(size: PixelSize(width: 4000, height: 4000), contentMode: .aspectFit)
        #expect(video.maximumSize(for: larger) == PixelSize(width: 1920, height: 1080))
        #expect(video.maximumSize(for: DecodingTarget(size: nil)) == PixelSize(width: 1920, height: 1080))
        // Unknown size: the target's bounds, which AVFoundation fits the frame inside.
        let unsized = VideoContainer(kind: .mp4, presentationSize: nil)
        #expect(unsized.maximumSize(for: fit) == PixelSize(width: 320, height: 320))
        #expect(unsized.maximumSize(for: DecodingTarget(size: nil)) == nil)
    }

    @Test("what AVFoundation is asked: the container's extension and size; mp4 and the target's bounds for other bytes")
    func frameRequest() {
        let fit = DecodingTarget(size: PixelSize(width: 320, height: 320), contentMode: .aspectFit)
        let mov = VideoBytes.movie(brands: ("qt  ", ["qt  "]), tracks: [VideoBytes.tkhd(width: 1920, height: 1080)])
        let request = VideoContainer.frameRequest(for: mov, target: fit)
        #expect(request.fileExtension == "mov")
        // A square of the frame's longest side (320x180): the frame fits it turned or not.
        #expect(request.maximumSize == PixelSize(width: 320, height: 320))
        let fill = DecodingTarget(size: PixelSize(width: 320, height: 200), contentMode: .aspectFill)
        #expect(VideoContainer.frameRequest(for: mov, target: fill).maximumSize == PixelSize(width: 356, height: 356))
        #expect(VideoContainer.frameRequest(for: mov, target: DecodingTarget(size: nil)).maximumSize == PixelSize(width: 1920, height: 1920))
        let other = VideoContainer.frameRequest(for: Data([0x1A, 0x45, 0xDF, 0xA3]), target: fit)
        #expect(other.fileExtension == "mp4")
        #expect(other.maximumSize == PixelSize(width: 320, height: 320))
        // No size in the bytes: a fill target's longest side, whatever the frame's aspect.
        #expect(VideoContainer.frameRequest(for: Data([0x1A, 0x45, 0xDF, 0xA3]), target: fill).maximumSize == PixelSize(width: 320, height: 320))
        let fitWide = DecodingTarget(size: PixelSize(width: 320, height: 200), contentMode: .aspectFit)
        #expect(VideoContainer.frameRequest(for: Data([0x1A, 0x45, 0xDF, 0xA3]), target: fitWide).maximumSize == PixelSize(width: 320, height: 200))
    }

    @Test("a portrait video (a quarter-turned track) comes out at its wanted size whichever way AVFoundation applies the box")
    func rotatedFrame() throws {
        let portrait = VideoBytes.movie(tracks: [VideoBytes.tkhd(width: 1920, height: 1080, quarterTurn: true)])
        let fill = DecodingTarget(size: PixelSize(width: 200, height: 200), contentMode: .aspectFill)
        let wanted = try #require(VideoContainer(data: portrait)?.maximumSize(for: fill))
        #expect(wanted.height > wanted.width, "portrait")
        let box = try #require(VideoContainer.frameRequest(for: portrait, target: fill).maximumSize)
        // The box applied after the rotation (to 1080x1920), or before it (to 1920x1080, then turned).
        #expect(PixelSize(width: 1080, height: 1920).fitted(into: box) == wanted)
        let stored = PixelSize(width: 1920, height: 1080).fitted(into: box)
        #expect(PixelSize(width: stored.height, height: stored.width) == wanted)
    }

    @Test("the video registration takes the containers AVFoundation reads, by MIME alone; a HEIC labelled video/mp4 stays an image")
    func mimeTypes() {
        var registry = ImageDecoderRegistry()
        registry.registerVideoDecoder(HeaderImageDecoder())
        let unknown = Data([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81])
        for type in ["Video/MP4; codecs=avc1", "video/quicktime", "video/x-m4v", "video/3gpp", "video/3gpp2"] {
            #expect(registry.info(for: unknown, contentType: type)?.registeredDecoder == "video", "\(type)")
        }
        for type in ["video/webm", "video", "image/webm", "videos/x"] {
            #expect(registry.info(for: unknown, contentType: type) == nil, "\(type)")
        }
        #expect(registry.info(for: VideoBytes.hd, contentType: nil)?.registeredDecoder == "video", "by its bytes")
        let heic = VideoBytes.movie(brands: ("heic", ["mif1", "heic"]), tracks: [])
        #expect(registry.info(for: heic, contentType: "video/mp4")?.format == .heic)
    }

    @Test("a type/* registration takes the type's subtypes, never a bare type without a subtype")
    func wildcard() {
        var registry = ImageDecoderRegistry()
        registry.register(HeaderImageDecoder(), name: "any video", mimeTypes: ["video/*"])
        let unknown = Data([0x1A, 0x45, 0xDF, 0xA3])
        #expect(registry.info(for: unknown, contentType: "video/webm")?.registeredDecoder == "any video")
        #expect(registry.info(for: unknown, contentType: "video") == nil)
        #expect(registry.info(for: unknown, contentType: "video/") == nil)
        #expect(registry.info(for: unknown, contentType: "/webm") == nil)
    }

    @Test("audio files in the same container (.m4a, audiobooks, protected tracks) are not videos")
    func audioIsNotVideo() {
        for major in ["M4A ", "M4B ", "M4P "] {
            let audio = VideoBytes.movie(brands: (major, [major, "mp42", "isom"]), tracks: [VideoBytes.tkhd(width: 0, height: 0)])
            #expect(!VideoContainer.matches(audio), "\(major)")
            #expect(VideoContainer(data: audio) == nil, "\(major)")
        }
    }

    @Test("a box size of 2^32 - 1 is read without trapping where Int is narrower")
    func largeBoxSize() {
        var data = Array(VideoBytes.ftyp("isom", ["isom"]))
        data.replaceSubrange(0..<4, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(VideoContainer(data: Data(data))?.kind == .mp4)
    }
}
