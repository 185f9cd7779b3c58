import CachedImageCore
import Foundation

/// Table 17: decoded bytes against the pixels drawn (issue 48), for the layouts apps use: each
/// request goes through the rules a view applies (`LayoutDecodeSize`: the laid-out size, subtree
/// defaults capping it, a rigid frame measured whole for `.loadImage(_:into:)`) and is decoded
/// from the photo's header by `HeaderImageDecoder` at the pipeline's `DecodingTarget`, with the
/// cap of a 393x852-point 3x iPhone. The "before" column is issue 48's measurement of `main` on
/// 2026-11-27 (the same layouts through `CachedAsyncImage.body`'s request over loopback); for the
/// grid and the portrait hero, which the issue did not measure, the rule of that day (a fill
/// covered whole).
struct DrawnSizeBench {
    let options: BenchOptions

    private struct Case {
        var name: String
        var source: PixelSize
        /// The proposal the view is placed with, in points (`nil`: unspecified).
        var proposal: (width: Double?, height: Double?)
        /// What the screen shows of the image, in pixels.
        var drawn: PixelSize
        var defaults = ImageRequestDefaults()
        var before: String
    }

    func run() throws {
        let scale = 3.0
        let screen = PixelSize(width: 1179, height: 2556)
        let cap = ImagePipeline.Configuration.decodeCap(screen: screen, hasScreen: true)
        let entryLimit = Int(Double(256 * 1024 * 1024) * ImagePipeline.Configuration().memoryCacheMaximumEntryShare)
        let photo = PixelSize(width: 4000, height: 3000)
        var capped = ImageRequestDefaults()
        capped.maximumDecodedPixelSize = PixelSize(width: 1200, height: 1200)
        // A 64 pt frame measured whole (`.loadImage` after `.frame`): drawn at its own size.
        let avatar = LayoutDecodeSize.drawnProposal(proposed: (393, 852), smallest: (64, 64), largest: (64, 64))
        let cases = [
            Case(name: "64 pt avatar under `maximumDecodedPixelSize: 1200x1200`", source: photo, proposal: avatar,
                 drawn: PixelSize(width: 192, height: 192), defaults: capped, before: "1179x884 (28x)"),
            Case(name: "3-column grid, 110 pt cells, fill", source: photo, proposal: (110, 110),
                 drawn: PixelSize(width: 330, height: 330), before: "440x330 (1.3x)"),
            Case(name: "feed row, 195 pt wide, height from the image", source: photo, proposal: (195, nil),
                 drawn: PixelSize(width: 585, height: 439), before: "1179x884 (4.1x)"),
            Case(name: "full-screen fill hero, portrait 3024x4032", source: PixelSize(width: 3024, height: 4032),
                 proposal: (393, 852), drawn: screen, before: "1917x2556 (1.6x)"),
            Case(name: "full-screen fill hero, landscape 4032x3024", source: PixelSize(width: 4032, height: 3024),
                 proposal: (393, 852), drawn: screen, before: "3408x2556 (2.9x)"),
            Case(name: "full-screen fill hero, panorama 12000x3000", source: PixelSize(width: 12000, height: 3000),
                 proposal: (393, 852), drawn: screen, before: "10224x2556 (8.7x)"),
        ]
        // An animated sticker (`CachedAnimatedImage` in a 120 pt frame) sizes by the same rule.
        var sticker = AnimationSizing()
        sticker.setRequest(ImageRequest(url: URL(string: "https://example.com/sticker.webp")))
        sticker.record(width: 120, height: 120, displayScale: scale, shown: nil, cap: cap)
        var table = Table(
            "17. Decoded bytes against the pixels drawn",
            columns: ["layout", "drawn", "before: decoded (x drawn)", "now: decoded", "bytes", "x drawn", "kept by a 256 MB memory cache"]
        )
        for item in cases {
            var sizing = LayoutDecodeSize()
            sizing.record(
                proposedWidth: item.proposal.width, proposedHeight: item.proposal.height, displayScale: scale,
                contentMode: .aspectFill, shown: nil, cap: cap
            )
            let request = sizing.request(for: ImageRequest(url: URL(string: "https://example.com/photo.jpg")), defaults: item.defaults)
            let target = DecodingTarget(size: request.targetPixelSize, contentMode: request.contentMode, maximumSize: cap)
            let header = DecodeMemoryBench.jpegHeader(item.source)
            guard let info = ImageInfo(data: header) else { continue }
            let decoded = try HeaderImageDecoder().decode(header, info: info, target: target).pixelSize
            let bytes = DecodedImage.bitmapCost(of: decoded)
            table.add([
                item.name, item.drawn.description, item.before, decoded.description,
                String(format: "%.1f MB", Double(bytes) / 1_000_000),
                Format.ratio(Double(bytes), to: Double(DecodedImage.bitmapCost(of: item.drawn))),
                bytes <= entryLimit ? "yes" : "no",
            ])
        }
        if let request = sticker.request {
            let source = PixelSize(width: 1920, height: 1080)
            let target = DecodingTarget(size: request.targetPixelSize, contentMode: request.contentMode, maximumSize: cap)
            let frame = target.decodedSize(of: source), drawn = PixelSize(width: 360, height: 360)
            let bytes = DecodedImage.bitmapCost(of: frame), buffer = 16 * 1024 * 1024
            table.add([
                "animated sticker, 120 pt, 1920x1080 frames (a 16 MB frame buffer holds \(buffer / bytes))",
                drawn.description, "1920x1080 (6.4x; the buffer holds 2)", frame.description,
                String(format: "%.1f MB", Double(bytes) / 1_000_000),
                Format.ratio(Double(bytes), to: Double(DecodedImage.bitmapCost(of: drawn))),
                bytes <= entryLimit ? "yes" : "no",
            ])
        }
        table.print(note: "Drawn = the pixels the screen shows of the image (a fill's clipped overflow is not drawn). Bytes = width x height x 4. A fill holds at most 1.5x its view's pixels unless that would draw it more than 1.5x enlarged, and never more than the cap's pixels (`DecodingTarget.fillOverflowLimit`): the panorama keeps the cap's pixels and is drawn 2x enlarged.")
    }
}
