import Foundation
import Testing
@testable import CachedImageCore

@Suite("Decoding at the laid-out size (SwiftUI's proposal)")
struct LayoutDecodeSizeTests {
    private let photo = PixelSize(width: 4000, height: 3000)

    @Test("proposal x display scale -> pixel target; unspecified, infinite or empty proposals keep the cap")
    func pixelTargets() {
        #expect(LayoutDecodeSize.pixelTarget(proposedWidth: 110, proposedHeight: 110, displayScale: 3) == PixelSize(width: 330, height: 330))
        #expect(LayoutDecodeSize.pixelTarget(proposedWidth: 110.2, proposedHeight: 50, displayScale: 2) == PixelSize(width: 221, height: 100))
        #expect(LayoutDecodeSize.pixelTarget(proposedWidth: 110, proposedHeight: nil, displayScale: 3) == nil)
        #expect(LayoutDecodeSize.layoutTarget(proposedWidth: 110, proposedHeight: nil, displayScale: 3)
            == LayoutTarget(size: PixelSize(width: 330, height: LayoutTarget.unbounded), contentMode: .aspectFit), "one side known: fit by it")
        #expect(LayoutDecodeSize.layoutTarget(proposedWidth: nil, proposedHeight: .infinity, displayScale: 3) == nil)
        #expect(LayoutDecodeSize.pixelTarget(proposedWidth: .infinity, proposedHeight: 110, displayScale: 3) == nil)
        #expect(LayoutDecodeSize.pixelTarget(proposedWidth: 0, proposedHeight: 110, displayScale: 3) == nil)
        #expect(LayoutDecodeSize.pixelTarget(proposedWidth: 10, proposedHeight: 10, displayScale: 0) == PixelSize(width: 10, height: 10))
        // Content drawn larger than the proposal (an image at its natural size) counts.
        #expect(LayoutDecodeSize.pixelTarget(proposedWidth: 110, proposedHeight: 110, content: (4000, 3000), displayScale: 1) == photo)
        // A fill's overflow (the proposal's height, wider) is not drawn: the proposal is the target.
        #expect(LayoutDecodeSize.pixelTarget(proposedWidth: 110, proposedHeight: 110, content: (146.7, 110), displayScale: 3) == PixelSize(width: 330, height: 330))
    }

    @Test("a full-screen scaledToFill hero: its overflow is not the target, and the fill decode is bounded")
    func fullScreenFillHero() throws {
        let screen = (width: 393.0, height: 852.0), cap = PixelSize(width: 2556, height: 2556)
        let landscape = PixelSize(width: 4032, height: 3024), panorama = PixelSize(width: 12000, height: 3000)
        for source in [landscape, panorama] {
            // The image shown fills the screen: as tall, wider (its overflow is clipped).
            let overflow = (width: screen.height * Double(source.width) / Double(source.height), height: screen.height)
            var sizing = LayoutDecodeSize()
            sizing.record(proposedWidth: screen.width, proposedHeight: screen.height, displayScale: 3, contentMode: .aspectFill, shown: nil, cap: cap)
            let target = try #require(sizing.target)
            #expect(target == PixelSize(width: 1179, height: 2556))
            let decoded = DecodingTarget(size: target, contentMode: .aspectFill, maximumSize: cap).decodedSize(of: source)
            // Within 1.5x the screen's pixels (the panorama within the cap's), not 2.9x and 8.7x.
            #expect(decoded.pixelCount <= max(Int(DecodingTarget.fillOverflowLimit * Double(target.pixelCount)), cap.pixelCount))
            #expect(decoded.pixelCount * 4 <= 256 * 1024 * 1024 / 10, "kept by a 256 MB memory cache")
            // Once shown, the overflowing content asks for nothing more.
            let grew = sizing.record(
                proposedWidth: screen.width, proposedHeight: screen.height, content: overflow, displayScale: 3,
                contentMode: .aspectFill, shown: (decoded, source), cap: cap
            )
            #expect(!grew, "no second decode of the overflow")
            #expect(sizing.target == target)
        }
    }

    @Test("a view measured whole (.loadImage after a .frame): a rigid side is drawn at its own size, a flexible one at the proposal")
    func drawnProposal() {
        let fixed = LayoutDecodeSize.drawnProposal(proposed: (393, 700), smallest: (64, 64), largest: (64, 64))
        #expect(fixed.width == 64 && fixed.height == 64)
        let flexible = LayoutDecodeSize.drawnProposal(proposed: (393, nil), smallest: (0, 0), largest: (.infinity, .infinity))
        #expect(flexible.width == 393 && flexible.height == nil)
        // .frame(height: 120) with a flexible width.
        let row = LayoutDecodeSize.drawnProposal(proposed: (393, nil), smallest: (0, 120), largest: (.infinity, 120))
        #expect(row.width == 393 && row.height == 120)
        // A 64 pt avatar measured whole under a 1200x1200 default: 192x192, not the default.
        var sizing = LayoutDecodeSize()
        sizing.record(proposedWidth: fixed.width, proposedHeight: fixed.height, displayScale: 3, contentMode: .aspectFill, shown: nil)
        var defaults = ImageRequestDefaults()
        defaults.maximumDecodedPixelSize = PixelSize(width: 1200, height: 1200)
        let request = sizing.request(for: ImageRequest(url: URL(string: "https://example.com/a.jpg")), defaults: defaults)
        #expect(request.targetPixelSize == PixelSize(width: 192, height: 192))
    }

    @Test("the content mode decides what the target decodes to: fill covers the cell, fit fits inside")
    func contentModes() throws {
        var sizing = LayoutDecodeSize()
        sizing.record(proposedWidth: 110, proposedHeight: 110, displayScale: 3, contentMode: .aspectFill, shown: nil)
        let request = sizing.applied(to: ImageRequest(url: URL(string: "https://example.com/a.jpg")))
        let target = try #require(request.targetPixelSize)
        #expect(DecodingTarget(size: target, contentMode: .aspectFill).decodedSize(of: photo) == PixelSize(width: 440, height: 330))
        #expect(DecodingTarget(size: target, contentMode: .aspectFit).decodedSize(of: photo) == PixelSize(width: 330, height: 248))
    }

    @Test("a request with its own target size, or a leading resize processor, is left alone")
    func ownSizeWins() {
        var sizing = LayoutDecodeSize()
        sizing.record(proposedWidth: 110, proposedHeight: 110, displayScale: 3, contentMode: .aspectFill, shown: nil)
        let own = ImageRequest(url: URL(string: "https://example.com/a.jpg"), targetPixelSize: PixelSize(width: 50, height: 50))
        #expect(sizing.applied(to: own).targetPixelSize == PixelSize(width: 50, height: 50))
        #expect(LayoutDecodeSize().applied(to: ImageRequest(url: URL(string: "https://example.com/a.jpg"))).targetPixelSize == nil)
    }

    @Test("hysteresis: a 1-point change does not re-decode; a larger proposal beyond the tolerance does; a smaller one never does")
    func hysteresis() {
        var sizing = LayoutDecodeSize()
        do {
            let changed = sizing.record(proposedWidth: 110, proposedHeight: 110, displayScale: 3, contentMode: .aspectFill, shown: nil)
            #expect(changed)
        }
        do {
            let changed = sizing.record(proposedWidth: 111, proposedHeight: 111, displayScale: 3, contentMode: .aspectFill, shown: nil)
            #expect(!changed)
        }
        do {
            let changed = sizing.record(proposedWidth: 109, proposedHeight: 110, displayScale: 3, contentMode: .aspectFill, shown: nil)
            #expect(!changed)
        }
        do {
            let changed = sizing.record(proposedWidth: 60, proposedHeight: 60, displayScale: 3, contentMode: .aspectFill, shown: nil)
            #expect(!changed, "smaller: the current decode covers it")
        }
        #expect(sizing.target == PixelSize(width: 330, height: 330))
        do {
            let changed = sizing.record(proposedWidth: 200, proposedHeight: 110, displayScale: 3, contentMode: .aspectFill, shown: nil)
            #expect(changed)
        }
        #expect(sizing.target == PixelSize(width: 600, height: 330))
        // Same points, a sharper display: more pixels, beyond the tolerance.
        do {
            let changed = sizing.record(proposedWidth: 200, proposedHeight: 110, displayScale: 4, contentMode: .aspectFill, shown: nil)
            #expect(changed)
        }
    }

    @Test("never re-decodes for a size the image on screen already covers, or when it is already the whole source")
    func coveredByTheImageOnScreen() {
        var sizing = LayoutDecodeSize()
        sizing.record(proposedWidth: 110, proposedHeight: 110, displayScale: 3, contentMode: .aspectFill, shown: nil)
        // The 440x330 decode of a 4:3 photo covers a 140-point-wide, 110-point-high cell.
        let shown = (decoded: PixelSize(width: 440, height: 330), source: Optional(photo))
        do {
            let changed = sizing.record(proposedWidth: 146, proposedHeight: 110, displayScale: 3, contentMode: .aspectFill, shown: shown)
            #expect(!changed)
        }
        do {
            let changed = sizing.record(proposedWidth: 146, proposedHeight: 146, displayScale: 3, contentMode: .aspectFill, shown: shown)
            #expect(changed)
        }
        // A small source shown whole: nothing larger exists.
        var small = LayoutDecodeSize()
        small.record(proposedWidth: 20, proposedHeight: 20, displayScale: 2, contentMode: .aspectFit, shown: nil)
        let whole = (decoded: PixelSize(width: 64, height: 64), source: Optional(PixelSize(width: 64, height: 64)))
        do {
            let changed = small.record(proposedWidth: 300, proposedHeight: 300, displayScale: 2, contentMode: .aspectFit, shown: whole)
            #expect(!changed)
        }
        do {
            let changed = small.record(proposedWidth: nil, proposedHeight: nil, displayScale: 2, contentMode: .aspectFit, shown: whole)
            #expect(!changed)
        }
    }

    @Test("one known dimension after a target counts by that side alone; an unspecified proposal goes back to the cap (the image may be drawn at its natural size)")
    func unspecifiedAfterTarget() {
        var sizing = LayoutDecodeSize()
        sizing.record(proposedWidth: 110, proposedHeight: 110, displayScale: 3, contentMode: .aspectFill, shown: nil)
        do {
            let changed = sizing.record(proposedWidth: nil, proposedHeight: 110, displayScale: 3, contentMode: .aspectFill, shown: nil)
            #expect(!changed, "the known side did not grow")
        }
        do {
            let changed = sizing.record(proposedWidth: nil, proposedHeight: 200, displayScale: 3, contentMode: .aspectFill, shown: nil)
            #expect(changed)
        }
        #expect(sizing.target == PixelSize(width: LayoutTarget.unbounded, height: 600), "fit by its height")
        do {
            let changed = sizing.record(proposedWidth: nil, proposedHeight: nil, displayScale: 3, contentMode: .aspectFill, shown: nil)
            #expect(changed)
        }
        #expect(sizing.target == nil)
        do {
            let changed = sizing.record(proposedWidth: nil, proposedHeight: nil, displayScale: 3, contentMode: .aspectFill, shown: nil)
            #expect(!changed)
        }
    }

    @Test("a width-only proposal (a feed row) fits by the width: a 4000x3000 photo in a 195-point column decodes at 585x439, not the cap")
    func widthOnlyFitsByWidth() throws {
        var sizing = LayoutDecodeSize()
        let first = sizing.record(proposedWidth: 195, proposedHeight: nil, displayScale: 3, contentMode: .aspectFill, shown: nil)
        #expect(first)
        let request = sizing.applied(to: ImageRequest(url: URL(string: "https://example.com/a.jpg")))
        #expect(request.contentMode == .aspectFit)
        let decoded = request.decodingTarget(maximumSize: PixelSize(width: 2556, height: 2556)).decodedSize(of: photo)
        #expect(decoded == PixelSize(width: 585, height: 439))
        // A 1-point wider row changes nothing; a much wider one (rotation) re-decodes.
        let slightlyWider = sizing.record(proposedWidth: 196, proposedHeight: nil, displayScale: 3, contentMode: .aspectFill, shown: nil)
        #expect(!slightlyWider)
        let rotated = sizing.record(proposedWidth: 390, proposedHeight: nil, displayScale: 3, contentMode: .aspectFill, shown: nil)
        #expect(rotated)
        #expect(sizing.target?.width == 1170)
    }

    @Test("the layout decides and subtree defaults cap it: a 64-point avatar under maximumDecodedPixelSize 1200x1200 decodes at 256x192, not 1200x900")
    func layoutBeatsDefaults() {
        var defaults = ImageRequestDefaults()
        defaults.maximumDecodedPixelSize = PixelSize(width: 1200, height: 1200)
        let own = ImageRequest(url: URL(string: "https://example.com/a.jpg"))
        let cap = PixelSize(width: 2556, height: 2556)
        // Before layout (or with no proposal): the default's maximum, fitted.
        let unlaid = LayoutDecodeSize()
        #expect(unlaid.request(for: own, defaults: defaults).decodingTarget(maximumSize: cap).decodedSize(of: photo) == PixelSize(width: 1200, height: 900))
        var sizing = LayoutDecodeSize()
        sizing.record(proposedWidth: 64, proposedHeight: 64, displayScale: 3, contentMode: .aspectFill, shown: nil)
        let request = sizing.request(for: own, defaults: defaults)
        #expect(request.targetPixelSize == PixelSize(width: 192, height: 192))
        #expect(request.decodingTarget(maximumSize: cap).decodedSize(of: photo) == PixelSize(width: 256, height: 192))
        // A default target size applies only while no layout gave one; an own size always wins.
        var sized = ImageRequestDefaults()
        sized.targetSize = CGSize(width: 600, height: 600)
        #expect(sizing.request(for: own, defaults: sized).targetPixelSize == PixelSize(width: 192, height: 192))
        #expect(unlaid.request(for: own, defaults: sized).targetPixelSize == PixelSize(width: 600, height: 600))
        let explicit = ImageRequest(url: own.url, targetPixelSize: PixelSize(width: 90, height: 90))
        #expect(sizing.request(for: explicit, defaults: defaults).targetPixelSize == PixelSize(width: 90, height: 90))
    }

    @Test("a new target for the same image keeps the image on screen while it decodes; another image does not")
    func keepsImageWhileResizing() {
        let url = URL(string: "https://example.com/a.jpg")
        let small = ImageRequest(url: url, targetPixelSize: PixelSize(width: 330, height: 330))
        let large = ImageRequest(url: url, targetPixelSize: PixelSize(width: 600, height: 330))
        #expect(LayoutDecodeSize.keepsImage(whileLoading: large, after: small))
        #expect(!LayoutDecodeSize.keepsImage(whileLoading: large, after: nil))
        #expect(!LayoutDecodeSize.keepsImage(whileLoading: large, after: large))
        #expect(!LayoutDecodeSize.keepsImage(whileLoading: ImageRequest(url: URL(string: "https://example.com/b.jpg")), after: small))
        #expect(!LayoutDecodeSize.keepsImage(whileLoading: ImageRequest(url: nil), after: ImageRequest(url: nil, targetPixelSize: small.targetPixelSize)))
    }

    /// BENCHMARKS.md, table 15, "Decoding at the laid-out size": a 3-column grid of 4000x3000 photos in
    /// 110-point cells on a 393x852-point, 3x screen (1179x2556 pixels), before (the cap: the
    /// screen's longer side squared) and after (the cell's proposal).
    @Test("a grid of 4000x3000 photos in 110-point cells decodes 33.7 times fewer bytes")
    func gridFigure() throws {
        let cap = try #require(ImagePipeline.Configuration.decodeCap(screen: PixelSize(width: 1179, height: 2556), hasScreen: true))
        let before = DecodingTarget(size: nil, contentMode: .aspectFill, maximumSize: cap).decodedSize(of: photo)
        var sizing = LayoutDecodeSize()
        sizing.record(proposedWidth: 110, proposedHeight: 110, displayScale: 3, contentMode: .aspectFill, shown: nil)
        let after = DecodingTarget(size: sizing.target, contentMode: .aspectFill, maximumSize: cap).decodedSize(of: photo)
        let cells = 3 * Int((852.0 / 110).rounded(.up)) // the rows on screen
        let bytesBefore = DecodedImage.bitmapCost(of: before), bytesAfter = DecodedImage.bitmapCost(of: after)
        print("""
            layout-decode-size: \(photo) in 110x110 pt at 3x: before \(before) \(bytesBefore) B, \
            after \(after) \(bytesAfter) B; \(cells) cells: \(bytesBefore * cells) B -> \(bytesAfter * cells) B
            """)
        #expect(before == PixelSize(width: 2556, height: 1917))
        #expect(after == PixelSize(width: 440, height: 330))
        #expect(bytesBefore / bytesAfter == 33)
    }

    @Test("a one-sided target is bounded by the cap, as UIKit's, and an image the cap limits already covers it: no decode of the same pixels again")
    func oneSidedTargetsAndTheCap() {
        let cap = PixelSize(width: 2556, height: 2556)
        var tall = LayoutDecodeSize()
        let shownAtCap = (decoded: PixelSize(width: 256, height: 2556), source: Optional(PixelSize(width: 1000, height: 10_000)))
        let tallChanged = tall.record(proposedWidth: 390, proposedHeight: nil, displayScale: 3, contentMode: .aspectFill, shown: shownAtCap, cap: cap)
        #expect(!tallChanged, "the cap limits the decode: the image on screen is it")

        var wide = LayoutDecodeSize()
        let photoAtCap = (decoded: PixelSize(width: 2556, height: 1917), source: Optional(photo))
        let wideChanged = wide.record(proposedWidth: nil, proposedHeight: 844, displayScale: 3, contentMode: .aspectFill, shown: photoAtCap, cap: cap)
        #expect(!wideChanged)

        var row = LayoutDecodeSize()
        let rowChanged = row.record(proposedWidth: 390, proposedHeight: nil, displayScale: 3, contentMode: .aspectFill, shown: nil, cap: cap)
        #expect(rowChanged)
        #expect(row.target == PixelSize(width: 1170, height: 2556), "the open side is the cap's, the key UIKit uses")
    }

    @Test("between one-sided and two-sided targets the tolerance holds: the row's image placed at its own size, or a narrower proposal, decodes nothing again")
    func kindChangesKeepTheTolerance() {
        let cap = PixelSize(width: 2556, height: 2556)
        let source = PixelSize(width: 1920, height: 1080)
        var sizing = LayoutDecodeSize()
        sizing.record(proposedWidth: 390, proposedHeight: nil, displayScale: 3, contentMode: .aspectFill, shown: nil, cap: cap)
        let decoded = (decoded: PixelSize(width: 1170, height: 658), source: Optional(source))
        let placed = sizing.record(proposedWidth: 390, proposedHeight: 219.375, displayScale: 3, contentMode: .aspectFill, shown: decoded, cap: cap)
        #expect(!placed, "1170x659 against 1170x658 on screen: a rounding")

        var loading = LayoutDecodeSize()
        loading.record(proposedWidth: 390, proposedHeight: 300, displayScale: 3, contentMode: .aspectFill, shown: nil, cap: cap)
        let narrower = loading.record(proposedWidth: 300, proposedHeight: nil, displayScale: 3, contentMode: .aspectFill, shown: nil, cap: cap)
        #expect(!narrower, "a smaller size never decodes again")
        let again = loading.record(proposedWidth: 390, proposedHeight: 300, displayScale: 3, contentMode: .aspectFill, shown: nil, cap: cap)
        #expect(!again)
    }
}
