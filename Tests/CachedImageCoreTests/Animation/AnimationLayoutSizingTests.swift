import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// Animated views size from their layout like still images (``AnimationSizing``): frames decode
/// at the size they are drawn, a growing view re-decodes with its first frame on screen, and a
/// new picture never shows the previous one's frames.
@Suite("Animation: frames sized by the view's layout", .timeLimit(.minutes(1)))
@MainActor
struct AnimationLayoutSizingTests {
    /// A 1920x1080 animated WebP: 12 frames of 100 ms, looping forever.
    private let sticker = ImageFixtures.animatedWebP(width: 1920, height: 1080, durations: Array(repeating: 100, count: 12))

    private func serve(_ fixture: ScriptedFixture, _ path: String) -> ImageRequest {
        fixture.server.serve(path, .ok(sticker, contentType: "image/webp"))
        return ImageRequest(url: fixture.url(path))
    }

    /// A player over a scripted server serving the sticker, on the issue's phone (a 256 MB
    /// memory cache, no decode cap of the pipeline's own), its frame sources sized by their target.
    private struct Rig {
        let fixture: ScriptedFixture
        let pipeline: ImagePipeline
        let clock: ManualUptimeClock
        let factory: SizedSourceFactory
        let player: AnimationPlayer<FakeFrameSource>
    }

    private func withRig(_ body: (Rig) async throws -> Void) async throws {
        try await withScriptedFixture { fixture in
            let pipeline = fixture.makePipeline {
                $0.memoryCacheCostLimit = 256 * 1024 * 1024
                $0.maximumDecodedPixelSize = nil
            }
            let clock = ManualUptimeClock()
            let factory = SizedSourceFactory()
            let player = AnimationPlayer<FakeFrameSource>(clock: clock, makeSource: { factory.make($0, $1) })
            try await body(Rig(fixture: fixture, pipeline: pipeline, clock: clock, factory: factory, player: player))
        }
    }

    @Test("a 120 pt sticker of a 1920x1080 animation decodes frames filling 360x360 (at most 640x360), not 1200x675 under a 1200 px default nor 1920x1080: the 16 MB buffer holds the loop and the second loop decodes nothing")
    func stickerFramesFitTheView() async throws {
        try await withRig { rig in
            let (fixture, pipeline, clock, factory, player) = (rig.fixture, rig.pipeline, rig.clock, rig.factory, rig.player)
            // SwiftUI: the proposal is recorded before onAppear loads.
            player.recordLayout(width: 120, height: 120, displayScale: 3)
            player.setVisible(true)
            let defaults = ImageRequestDefaults(maximumDecodedPixelSize: PixelSize(width: 1200, height: 1200))
            player.show(serve(fixture, "/sticker.webp"), defaults: defaults, pipeline: pipeline)
            await clock.waitForSleepers(1)

            // The still images' fill rule for the 360x360 pixels drawn (640x360, or less where the
            // rule bounds a fill's overflow), not the defaults' 1200x675.
            let frameSize = DecodingTarget(size: PixelSize(width: 360, height: 360)).decodedSize(of: PixelSize(width: 1920, height: 1080))
            #expect(frameSize.width <= 640 && frameSize.height <= 360)
            #expect(factory.decodedSizes == [frameSize])
            let source = try #require(factory.sources.first)
            // One loop: every frame decoded once, all of them kept.
            for frame in 1...12 {
                clock.advance(by: 0.1)
                #expect(await waitUntil(player) { player.displayedFrame == frame % 12 })
                await clock.waitForSleepers(1)
            }
            #expect(source.decodeCount == 12)
            #expect(player.bufferedFrames == Array(0..<12))
            #expect(player.bufferedCost == 12 * frameSize.width * frameSize.height * 4)
            // The second loop plays from the buffer.
            for frame in 1...12 {
                clock.advance(by: 0.1)
                #expect(await waitUntil(player) { player.displayedFrame == frame % 12 })
                await clock.waitForSleepers(1)
            }
            #expect(source.decodeCount == 12, "frames decoded again on the second loop")
        }
    }

    @Test("the request's own target size wins over the layout")
    func explicitTargetWins() async throws {
        try await withRig { rig in
            let (fixture, pipeline, factory, player) = (rig.fixture, rig.pipeline, rig.factory, rig.player)
            player.recordLayout(width: 120, height: 120, displayScale: 3)
            var request = serve(fixture, "/sticker.webp")
            request.targetPixelSize = PixelSize(width: 96, height: 96)
            player.show(request, pipeline: pipeline)
            #expect(player.request?.targetPixelSize == PixelSize(width: 96, height: 96))
            #expect(await waitUntil(player) { player.playback.animation != nil })
            let own = DecodingTarget(size: PixelSize(width: 96, height: 96)).decodedSize(of: PixelSize(width: 1920, height: 1080))
            #expect(factory.decodedSizes == [own], "the request's 96x96, not the layout's 360x360")
        }
    }

    @Test("UIKit bounds: an unsized request waits for the first layout; 1x outside a window, then 3x in one, re-decodes; smaller bounds or a lower scale never do")
    func boundsAndScale() async throws {
        try await withRig { rig in
            let (fixture, pipeline, player) = (rig.fixture, rig.pipeline, rig.player)
            let own = serve(fixture, "/sticker.webp")
            player.show(own, waitsForLayout: true, pipeline: pipeline) // cellForItemAt, before layout
            #expect(player.request == nil)
            #expect(player.sizing.isWaitingForLayout)

            player.layoutDidChange(width: 40, height: 40, displayScale: 1) // laid out outside a window
            #expect(player.request?.targetPixelSize == PixelSize(width: 40, height: 40))
            #expect(await waitUntil(player) { player.playback.animation != nil })
            player.layoutDidChange(width: 40, height: 40, displayScale: 3) // joined a 3x window
            #expect(player.request?.targetPixelSize == PixelSize(width: 120, height: 120))
            #expect(await waitUntil(player) { player.playback.animation != nil })
            player.layoutDidChange(width: 30, height: 30, displayScale: 3)
            player.layoutDidChange(width: 40, height: 40, displayScale: 2) // left the window
            #expect(player.request?.targetPixelSize == PixelSize(width: 120, height: 120))
            #expect(fixture.server.requestCount(for: "/sticker.webp") == 1, "one download for every size")
        }
    }

    @Test("UIKit: an image view sized by its image (0x0 after its first layout) loads at the cap: the defaults' maximum")
    func sizedByItsImage() async throws {
        try await withRig { rig in
            let (fixture, pipeline, factory, player) = (rig.fixture, rig.pipeline, rig.factory, rig.player)
            let defaults = ImageRequestDefaults(maximumDecodedPixelSize: PixelSize(width: 480, height: 480))
            player.show(serve(fixture, "/sticker.webp"), defaults: defaults, waitsForLayout: true, pipeline: pipeline)
            #expect(player.request == nil)
            player.layoutDidChange(width: 0, height: 0, displayScale: 3)
            #expect(player.request?.targetPixelSize == PixelSize(width: 480, height: 480))
            #expect(await waitUntil(player) { player.playback.animation != nil })
            #expect(factory.decodedSizes == [PixelSize(width: 480, height: 270)])
        }
    }

    @Test("a UIKit view drawing its image unscaled (.center) loads the request as is, whatever its bounds; a resize processor's size wins like a target size")
    func unscaledViewsAndResizeProcessors() {
        let url = URL(string: "https://example.com/sticker.webp")
        var sizing = AnimationSizing()
        sizing.record(width: 40, height: 40, displayScale: 3, shown: nil, cap: nil)
        sizing.setRequest(ImageRequest(url: url), waitsForLayout: true, followsLayout: false)
        #expect(sizing.request?.targetPixelSize == nil)
        #expect(!sizing.isWaitingForLayout)

        sizing.setRequest(ImageRequest(url: url), waitsForLayout: true)
        #expect(sizing.request?.targetPixelSize == PixelSize(width: 120, height: 120), "the layout recorded before the request applies")
        var resized = ImageRequest(url: url)
        resized.processors = [HalfHundredResize()]
        var fresh = AnimationSizing()
        fresh.setRequest(resized, waitsForLayout: true)
        #expect(!fresh.isWaitingForLayout, "its processor gives the size: nothing to wait for")
        #expect(fresh.request?.targetPixelSize == nil)
    }

    @Test("growth re-decodes with the first frame on screen: no placeholder in between, then the new size's first frame")
    func growthKeepsTheFrame() async throws {
        try await withRig { rig in
            let (fixture, pipeline, player) = (rig.fixture, rig.pipeline, rig.player)
            player.recordLayout(width: 40, height: 40, displayScale: 3)
            player.show(serve(fixture, "/sticker.webp"), pipeline: pipeline)
            #expect(await waitUntil(player) { player.playback.animation != nil })
            guard case .firstFrame(let small) = player.phase else { Issue.record("no first frame"); return }

            player.layoutDidChange(width: 200, height: 200, displayScale: 3)
            try #require(player.request?.targetPixelSize == PixelSize(width: 600, height: 600))
            guard case .firstFrame(let kept) = player.phase else { Issue.record("placeholder while resizing: \(player.phase)"); return }
            #expect(kept.pixelSize == small.pixelSize)
            #expect(await waitUntil(player) { if case .firstFrame(let image) = player.phase { image.pixelSize != small.pixelSize } else { false } })
        }
    }

    @Test("a new URL never draws the previous sticker: not in the render before the player has it, not after")
    func newPictureNeverShowsThePrevious() async throws {
        try await withRig { rig in
            let (fixture, pipeline, clock, player) = (rig.fixture, rig.pipeline, rig.clock, rig.player)
            player.layoutDidChange(width: 40, height: 40, displayScale: 3)
            player.setVisible(true)
            let first = serve(fixture, "/a.webp")
            player.show(first, waitsForLayout: true, pipeline: pipeline)
            await clock.waitForSleepers(1)
            #expect(player.displayedFrame == 0)
            #expect(player.drawsFrame(for: first))

            // SwiftUI renders the row's new request before `onChange` hands it to the player.
            let second = serve(fixture, "/b.webp")
            #expect(!player.drawsFrame(for: second))
            // What that render looks up in memory instead: the new request at the same layout.
            #expect(player.sizedRequest(for: second, defaults: ImageRequestDefaults())?.targetPixelSize == PixelSize(width: 120, height: 120))
            // UIKit's setImage (and SwiftUI's onChange): the old frame goes before it returns.
            player.show(second, waitsForLayout: true, pipeline: pipeline)
            #expect(player.displayedFrame == nil)
            if case .firstFrame = player.phase { Issue.record("the previous sticker's first frame is still shown") }
            #expect(player.drawsFrame(for: second))
            #expect(await waitUntil(player) { player.playback.animation != nil })
        }
    }
}

/// A leading resize processor (`CachedImage`'s `Resize` as the pipeline sees it): its size is
/// the decode's target.
private struct HalfHundredResize: ImageResizing {
    var pixelSize: PixelSize { PixelSize(width: 50, height: 50) }
    var contentMode: ImageContentMode { .aspectFill }
    var identifier: String { "test.resize(50x50)" }
    func process(_ image: DecodedImage) throws -> DecodedImage { image }
}

/// Makes ``FakeFrameSource``s whose frames cost what the decoding target makes of the file's
/// size (4 bytes a pixel), as ImageIO's would.
final class SizedSourceFactory: Sendable {
    private let made = Locked<[(source: FakeFrameSource, decoded: PixelSize)]>([])

    var sources: [FakeFrameSource] { made.withLock { $0.map(\.source) } }
    /// The frame size of each source made, in order.
    var decodedSizes: [PixelSize] { made.withLock { $0.map(\.decoded) } }

    func make(_ data: Data, _ target: DecodingTarget) -> FakeFrameSource? {
        guard let info = AnimatedImageInfo(data: data), let size = ImageInfo(data: data)?.pixelSize else { return nil }
        let decoded = target.decodedSize(of: size)
        let source = FakeFrameSource(info: info, frameCost: decoded.width * decoded.height * 4)
        made.withLock { $0.append((source, decoded)) }
        return source
    }
}
