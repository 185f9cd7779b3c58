import CachedImageCore
import Foundation

/// Table 10: what a 48 MP-class JPEG costs decoded, full size against the decode cap and a cell's
/// fill target (issue 26): the bitmap, how many such decodes the default decoding budget admits
/// at once, and whether the memory cache keeps it (one entry at most 10% of a 256 MB cache).
/// Sizes come from the JPEG's header through `DecodingTarget`, the rule every decoder follows.
struct DecodeMemoryBench {
    let options: BenchOptions

    /// A JPEG header (SOI, a baseline SOF0 frame, EOI) declaring `size`: all a decoder reads to size its bitmap.
    static func jpegHeader(_ size: PixelSize) -> Data {
        let h = UInt8(truncatingIfNeeded: size.height >> 8), hl = UInt8(truncatingIfNeeded: size.height)
        let w = UInt8(truncatingIfNeeded: size.width >> 8), wl = UInt8(truncatingIfNeeded: size.width)
        return Data([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08, h, hl, w, wl, 0x03,
                     0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, 0xFF, 0xD9])
    }

    func run() throws {
        let photo = PixelSize(width: 8064, height: 6048)  // a 48 MP iPhone photo
        let header = Self.jpegHeader(photo)
        guard let info = ImageInfo(data: header), info.pixelSize == photo else {
            print("\n(table 10 skipped: the JPEG header did not parse)")
            return
        }
        let configuration = ImagePipeline.Configuration()
        let budget = configuration.decodingMemoryBudget
        let cacheLimit = 256 * 1024 * 1024
        let entryLimit = Int(Double(cacheLimit) * configuration.memoryCacheMaximumEntryShare)
        let screen = PixelSize(width: 1290, height: 2796)  // iPhone 15 Pro Max, portrait, in pixels
        let cap = ImagePipeline.Configuration.decodeCap(screen: screen, hasScreen: true)
        let cell = PixelSize(width: 390, height: 390)
        let cases: [(String, DecodingTarget)] = [
            ("no target size, cap off (before: full size)", DecodingTarget(size: nil)),
            ("no target size, default cap (screen \(screen) -> \(cap?.description ?? "none"))", DecodingTarget(size: nil, maximumSize: cap)),
            ("detail view, fit \(screen)", DecodingTarget(size: screen, contentMode: .aspectFit, maximumSize: cap)),
            ("cell \(cell), fill", DecodingTarget(size: cell, contentMode: .aspectFill, maximumSize: cap)),
            ("cell \(cell), fit (before: fit only)", DecodingTarget(size: cell, contentMode: .aspectFit, maximumSize: cap)),
        ]
        var table = Table(
            "10. Decode memory of a 48 MP JPEG (\(photo), header only): full size vs capped vs a cell",
            columns: ["decode", "decoded size", "bitmap", "vs full", "at once in the \(budget / 1_048_576) MB decoding budget", "kept in a 256 MB memory cache"]
        )
        let full = DecodedImage.bitmapCost(of: photo)
        for (name, target) in cases {
            let image = try HeaderImageDecoder().decode(header, info: info, target: target)
            let bytes = DecodedImage.bitmapCost(of: image.pixelSize)
            table.add([
                name,
                image.pixelSize.description,
                String(format: "%.1f MB", Double(bytes) / 1_048_576),
                Format.ratio(Double(bytes), to: Double(full)),
                bytes > budget ? "1 (alone)" : String(budget / max(1, bytes)),
                bytes <= entryLimit ? "yes" : "no (> \(entryLimit / 1_048_576) MB, 10%)",
            ])
        }
        table.print(note: "Bitmap = width x height x 4 bytes, what ImageIO allocates for the decoded image (the decode itself runs only on Apple platforms; these sizes are what `ImageIODecoder` asks ImageIO for). The cap is a square of the screen's longer side, so a full-screen image stays sharp in either orientation.")
    }
}
