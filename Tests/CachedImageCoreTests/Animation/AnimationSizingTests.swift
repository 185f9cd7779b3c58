import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// Sizes, one rule: an animation's frames decode like its first frame, in the request's
/// content mode and within the pipeline's cap.
@Suite("Animation: frames sized like the first frame", .timeLimit(.minutes(1)))
@MainActor
struct AnimationSizingTests {
    @Test("the frame source gets the request's size and content mode within the pipeline's cap", arguments: [ImageContentMode.aspectFill, .aspectFit])
    func framesUseTheFirstFrameRule(mode: ImageContentMode) async throws {
        try await withScriptedFixture { fixture in
            let gif = ImageFixtures.animatedGIF(width: 400, height: 300, delays: [10, 10], loopCount: 0)
            fixture.server.serve("/a.gif", .ok(gif, contentType: "image/gif"))
            let cap = PixelSize(width: 80, height: 80)
            let pipeline = fixture.makePipeline { $0.maximumDecodedPixelSize = cap }
            let factory = FakeSourceFactory()
            let player = AnimationPlayer<FakeFrameSource>(clock: ManualUptimeClock(), makeSource: { factory.make($0, $1) })
            var request = ImageRequest(url: fixture.url("/a.gif"), targetPixelSize: PixelSize(width: 100, height: 50))
            request.contentMode = mode
            player.load(request, pipeline: pipeline)
            #expect(await waitUntil(player) { player.playback.animation != nil })
            let target = try #require(factory.targets.last)
            #expect(target == DecodingTarget(size: PixelSize(width: 100, height: 50), contentMode: mode, maximumSize: cap))
            // 400x300: filled to 100x75, then capped to 80x60; fitted to 67x50 (within the cap).
            let expected = mode == .aspectFill ? PixelSize(width: 80, height: 60) : PixelSize(width: 67, height: 50)
            #expect(target.decodedSize(of: PixelSize(width: 400, height: 300)) == expected)
            #expect(target.longestSide(forSource: PixelSize(width: 400, height: 300)) == max(expected.width, expected.height))
        }
    }
}
