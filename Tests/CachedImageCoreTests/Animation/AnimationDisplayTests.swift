import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// Frames advanced by the display (a display link's timestamps), not by a sleeping loop: which
/// frame each refresh shows, late refreshes skipping frames, pauses, and redraws only when the
/// frame changes.
@Suite("Animation: driven by the display", .timeLimit(.minutes(1)))
@MainActor
struct AnimationDisplayTests {
    /// Three frames of 100 ms, looping forever.
    private let info = AnimatedImageInfo(format: .gif, frameDelays: [0.1, 0.1, 0.1], loopCount: 0)
    private let start: TimeInterval = 1_000

    private func playing(_ info: AnimatedImageInfo) -> AnimationPlayback {
        var playback = AnimationPlayback()
        playback.setVisible(true, at: start)
        playback.setAnimation(info, at: start)
        return playback
    }

    /// Runs the step at each timestamp with every frame buffered; returns the frames drawn.
    private func drawn(_ playback: AnimationPlayback, at timestamps: [TimeInterval]) -> [Int] {
        var displayed: Int?
        var draws: [Int] = []
        for timestamp in timestamps {
            let step = AnimationDisplayStep(playback, at: timestamp, displayed: displayed, prefetchedAfter: nil) { _ in true }
            if let frame = step.show {
                draws.append(frame)
                displayed = frame
            }
        }
        return draws
    }

    private func ticks(hz: Double, for seconds: Double) -> [TimeInterval] {
        (0..<Int(hz * seconds)).map { start + Double($0) / hz }
    }

    @Test("at 60 Hz and at 120 Hz, one redraw per frame change: 9 in 0.9 s, not 54 or 108", arguments: [60.0, 120.0])
    func redrawsOnlyOnFrameChanges(hz: Double) {
        let draws = drawn(playing(info), at: ticks(hz: hz, for: 0.9))
        #expect(draws == [0, 1, 2, 0, 1, 2, 0, 1, 2])
    }

    @Test("a late refresh (a 180 ms hitch) skips the frames it missed and keeps the animation's speed")
    func lateRefreshSkips() {
        let timestamps = [start, start + 1.0 / 60, start + 0.03, start + 0.21, start + 0.21 + 1.0 / 60, start + 0.31]
        #expect(drawn(playing(info), at: timestamps) == [0, 2, 0], "frame 1 was due during the hitch: never drawn")
    }

    @Test("a pause is not played: after it, the animation goes on from the frame it paused on")
    func pauseIsNotPlayed() {
        var playback = playing(info)
        #expect(drawn(playback, at: [start, start + 0.15]) == [0, 1])
        playback.setVisible(false, at: start + 0.15)
        let resume = start + 5
        playback.setVisible(true, at: resume)
        // 0.15 s played before the pause: frame 1 until 0.2 s of play, then frame 2.
        #expect(playback.position(at: resume).frame == 1)
        #expect(drawn(playback, at: [resume, resume + 0.04, resume + 0.06]) == [1, 2])
    }

    @Test("a due frame not decoded is decoded, the frame on screen stays; the next one is prefetched once")
    func decodesWhatIsMissing() {
        let playback = playing(info)
        let missing = AnimationDisplayStep(playback, at: start + 0.12, displayed: 0, prefetchedAfter: 0) { $0 == 0 }
        #expect(missing.show == nil && missing.decode == 1 && !missing.isPrefetch && !missing.isFinished)
        let prefetch = AnimationDisplayStep(playback, at: start + 0.12, displayed: 0, prefetchedAfter: 0) { $0 != 2 }
        #expect(prefetch.show == 1 && prefetch.decode == 2 && prefetch.isPrefetch)
        let once = AnimationDisplayStep(playback, at: start + 0.13, displayed: 1, prefetchedAfter: 1) { $0 != 2 }
        #expect(once.show == nil && once.decode == nil && !once.isFinished)
    }

    @Test("a finite animation finishes at the refresh after its last frame's end")
    func finishes() {
        let once = AnimatedImageInfo(format: .gif, frameDelays: [0.1, 0.1], loopCount: 1)
        let step = AnimationDisplayStep(playing(once), at: start + 0.25, displayed: 1, prefetchedAfter: nil) { _ in true }
        #expect(step.isFinished && step.show == nil)
    }

    @Test("the refresh rate asked of the display link follows the shortest frame")
    func preferredRate() {
        #expect(AnimationDisplayStep.framesPerSecond(for: info) == 10)
        #expect(AnimationDisplayStep.framesPerSecond(for: AnimatedImageInfo(format: .gif, frameDelays: [0.02, 0.5], loopCount: 0)) == 50)
        #expect(AnimationDisplayStep.framesPerSecond(for: AnimatedImageInfo(format: .png, frameDelays: [0.001], loopCount: 0), maximum: 120) == 120)
    }

    @Test("the player: the link runs only while playing; 60 Hz refreshes report a change per frame change, none while paused")
    func playerDrivenByTheDisplay() async throws {
        try await withScriptedFixture { fixture in
            let gif = ImageFixtures.animatedGIF(width: 8, height: 8, delays: [10, 10, 10], loopCount: 0)
            fixture.server.serve("/a.gif", .ok(gif, contentType: "image/gif"))
            let clock = ManualUptimeClock()
            let factory = FakeSourceFactory()
            let player = AnimationPlayer<FakeFrameSource>(clock: clock, driver: .display, makeSource: { factory.make($0, $1) })
            var linkStates: [Bool] = []
            player.onWantsDisplayRefreshChange = { linkStates.append($0) }
            player.setVisible(true)
            player.load(ImageRequest(url: fixture.url("/a.gif")), pipeline: fixture.makePipeline())
            while !player.wantsDisplayRefresh { try await Task.sleep(for: .milliseconds(1)) }
            #expect(player.preferredFramesPerSecond == 10)
            #expect(clock.sleeperCount == 0, "no sleeping loop: the display drives it")

            // Each refresh, then its decode (if it asked for one) finishing before the next:
            // decoding keeps up with the display.
            let origin = clock.now
            var changes = 0
            let previous = player.onChange
            player.onChange = { previous?(); changes += 1 }
            @MainActor func refresh(_ tick: Int) async throws {
                player.displayDidRefresh(at: origin + Double(tick) / 60)
                while player.isDecodingForDisplay { try await Task.sleep(for: .milliseconds(1)) }
            }
            try await refresh(0) // frame 0 missing: decoded, nothing drawn yet
            #expect(changes == 0 && player.bufferedFrames == [0])
            try await refresh(0) // drawn; frame 1 prefetched
            #expect(changes == 1 && player.displayedFrame == 0 && player.bufferedFrames == [0, 1])
            for tick in 1..<60 { try await refresh(tick) }
            #expect(changes == 10, "frames 1, 2, 0, ... at each 100 ms: 9 more redraws in 59 refreshes")
            #expect(factory.sources.first?.decodeCount == 3, "every frame decoded once")

            player.setVisible(false)
            #expect(linkStates == [true, false])
            let paused = changes
            player.displayDidRefresh(at: origin + 2)
            #expect(changes == paused)
        }
    }
}
