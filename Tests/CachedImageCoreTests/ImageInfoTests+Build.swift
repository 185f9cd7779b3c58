import Foundation
import ImageFixtures
@testable import CachedImageCore

// MARK: - Hand-built containers

/// Byte builders for formats the fixture generator does not make (WebP, HEIF).
enum Build {
    static func u16be(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func u16le(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    static func u24le(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)] }
    static func u32be(_ value: Int) -> [UInt8] { u16be(value >> 16) + u16be(value & 0xFFFF) }
    static func u32le(_ value: Int) -> [UInt8] { u16le(value & 0xFFFF) + u16le(value >> 16) }
    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

    // WebP: RIFF header around one or more chunks (each padded to an even length).
    static func riffWebP(_ chunks: [(String, [UInt8])]) -> Data {
        var body = ascii("WEBP")
        for (type, payload) in chunks {
            body += ascii(type) + u32le(payload.count) + payload
            if payload.count % 2 == 1 { body.append(0) }
        }
        return Data(ascii("RIFF") + u32le(body.count) + body)
    }

    /// A lossy key frame header (frame tag, start code, sizes with scale bits) plus filler.
    static func vp8(width: Int, height: Int, scale: Int = 0, keyFrame: Bool = true) -> [UInt8] {
        let tag: [UInt8] = [keyFrame ? 0x10 : 0x11, 0x02, 0x00]
        return tag + [0x9D, 0x01, 0x2A] + u16le(width | scale << 14) + u16le(height | scale << 14)
            + [UInt8](repeating: 0xA5, count: 21)
    }

    static func vp8l(width: Int, height: Int) -> [UInt8] {
        [0x2F] + u32le((width - 1) | (height - 1) << 14) + [UInt8](repeating: 0x5A, count: 11)
    }

    static func vp8x(width: Int, height: Int) -> [UInt8] {
        [0x10, 0, 0, 0] + u24le(width - 1) + u24le(height - 1)
    }

    // ISO-BMFF boxes.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        u32be(8 + payload.count) + ascii(type) + payload
    }

    static func fullBox(_ type: String, version: UInt8 = 0, flags: Int = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version, UInt8(flags >> 16 & 0xFF), UInt8(flags >> 8 & 0xFF), UInt8(flags & 0xFF)] + payload)
    }

    static func ftyp(major: String, compatible: [String]) -> [UInt8] {
        box("ftyp", ascii(major) + u32be(0) + compatible.flatMap(ascii))
    }

    static func ispe(_ width: Int, _ height: Int) -> [UInt8] {
        fullBox("ispe", u32be(width) + u32be(height))
    }

    /// ipma version 0, flags 0: 16-bit item IDs, 8-bit (1-based, essential bit 0x80) indices.
    static func ipma(_ entries: [(item: Int, properties: [Int])]) -> [UInt8] {
        var payload = u32be(entries.count)
        for entry in entries {
            payload += u16be(entry.item) + [UInt8(entry.properties.count)] + entry.properties.map { UInt8($0) }
        }
        return fullBox("ipma", payload)
    }

    /// iloc version 0 (4-byte offsets and lengths, no base offset): one extent for item 1.
    static func iloc(offset: Int, length: Int) -> [UInt8] {
        fullBox("iloc", [0x44, 0x00] + u16be(1) + u16be(1) + u16be(0) + u16be(1) + u32be(offset) + u32be(length))
    }

    /// A HEIF file: ftyp, meta (hdlr, optional pitm, optional iloc pointing item 1 at the whole
    /// mdat payload, iprp with `properties` and `ipma`), mdat.
    static func heif(
        major: String = "heic",
        compatible: [String] = ["mif1", "heic"],
        primary: Int? = 1,
        properties: [[UInt8]],
        associations: [(item: Int, properties: [Int])]?,
        withItemLocations: Bool = false,
        mdat: [UInt8] = [UInt8](repeating: 0x77, count: 40)
    ) -> Data {
        let fileType = ftyp(major: major, compatible: compatible)
        let hdlr = fullBox("hdlr", u32be(0) + ascii("pict") + u32be(0) + u32be(0) + u32be(0) + [0])
        let pitm = primary.map { fullBox("pitm", u16be($0)) } ?? []
        let ipco = box("ipco", properties.flatMap { $0 })
        let iprp = box("iprp", ipco + (associations.map(ipma) ?? []))
        func meta(mdatOffset: Int) -> [UInt8] {
            let locations = withItemLocations ? iloc(offset: mdatOffset, length: mdat.count) : []
            return fullBox("meta", hdlr + pitm + locations + iprp)
        }
        let mdatOffset = fileType.count + meta(mdatOffset: 0).count + 8
        return Data(fileType + meta(mdatOffset: mdatOffset) + box("mdat", mdat))
    }

    static let hvcC = box("hvcC", [UInt8](repeating: 0x01, count: 23))
    static let av1C = box("av1C", [0x81, 0x00, 0x0C, 0x00])

    /// A typical HEIC: primary item 1 is 4032x3024, item 2 a 320x240 thumbnail.
    static let heic = heif(
        properties: [hvcC, ispe(4032, 3024), ispe(320, 240)],
        associations: [(1, [0x81, 2]), (2, [0x81, 3])],
        withItemLocations: true
    )

    static let avif = heif(
        major: "avif", compatible: ["mif1", "avif", "miaf"],
        properties: [av1C, ispe(1920, 1080)],
        associations: [(1, [0x81, 2])],
        withItemLocations: true
    )
}
