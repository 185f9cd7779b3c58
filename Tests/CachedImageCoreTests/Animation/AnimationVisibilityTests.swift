import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// Nothing animates unseen: which inputs make an animated view visible (``AnimationVisibility``),
/// and a player that follows them stops advancing and decoding while unseen and resumes after.
@Suite("Animation: visibility", .timeLimit(.minutes(1)))
@MainActor
struct AnimationVisibilityTests {
    /// A 100x100 pt view in the middle of a 390x844 window, nothing hidden.
    private func onScreen() -> AnimationVisibility {
        var visibility = AnimationVisibility()
        visibility.isInWindow = true
        visibility.frame = CGRect(x: 100, y: 300, width: 100, height: 100)
        visibility.clips = [CGRect(x: 0, y: 0, width: 390, height: 844)]
        return visibility
    }

    @Test("in a window, opaque and inside its bounds: visible; outside a window: not")
    func window() {
        #expect(onScreen().isVisible)
        var detached = onScreen()
        detached.isInWindow = false
        #expect(!detached.isVisible)
        #expect(!detached.needsPeriodicCheck, "joining a window tells the view")
        #expect(onScreen().needsPeriodicCheck, "scrolling moves a view without telling it")
    }

    @Test("a view with nothing to play (a still image, a finished loop, stopped, the app in the background, Reduce Motion) checks nothing periodically")
    func nothingToPlayWakesNothing() {
        var playback = AnimationPlayback()
        #expect(!playback.wouldRunIfVisible, "a still image (no animation)")
        let info = AnimatedImageInfo(format: .gif, frameDelays: [0.1, 0.1, 0.1], loopCount: 1)
        playback.setAnimation(info, at: 0)
        #expect(playback.wouldRunIfVisible, "an animation that would play if seen")
        var visibility = onScreen()
        visibility.wantsToPlay = playback.wouldRunIfVisible
        #expect(visibility.needsPeriodicCheck)
        for stop: (inout AnimationPlayback) -> Void in [
            { $0.setRequestedPlaying(false, at: 1) },
            { $0.setAppActive(false, at: 1) },
            { $0.setReduceMotionEnabled(true, at: 1) },
        ] {
            var stopped = playback
            stop(&stopped)
            visibility.wantsToPlay = stopped.wouldRunIfVisible
            #expect(!visibility.needsPeriodicCheck)
            #expect(!visibility.isVisible || !stopped.shouldRun)
        }
        // A finished loop: seen, played to the end.
        var finished = playback
        finished.setVisible(true, at: 0)
        finished.settle(at: 100)
        #expect(finished.isFinished)
        visibility.wantsToPlay = finished.wouldRunIfVisible
        #expect(!visibility.needsPeriodicCheck, "a finished sticker wakes nothing")
    }

    @Test("SwiftUI: no frame known, onAppear/onDisappear say whether it is in a window; on macOS an occluded window pauses it too")
    func swiftUI() {
        var visibility = AnimationVisibility()
        #expect(!visibility.isVisible)
        visibility.isInWindow = true // onAppear
        #expect(visibility.isVisible)
        #expect(!visibility.needsPeriodicCheck)
        visibility.isWindowSeen = false // NSWindow.didChangeOcclusionStateNotification
        #expect(!visibility.isVisible)
    }

    @Test("a hidden ancestor (a cell UIKit keeps for reuse) or a transparent one: not visible")
    func hiddenOrTransparentAncestors() {
        var hidden = onScreen()
        hidden.isHidden = true
        #expect(!hidden.isVisible)
        var transparent = onScreen()
        transparent.opacity = 0.005 // 0.1 x 0.05 up the chain
        #expect(!transparent.isVisible)
        transparent.opacity = 0
        #expect(!transparent.isVisible)
        var faded = onScreen()
        faded.opacity = 0.5
        #expect(faded.isVisible)
    }

    @Test("a prefetched cell below the window's bounds: not visible; one point of it inside: visible")
    func outsideTheWindow() {
        var prefetched = onScreen()
        prefetched.frame?.origin.y = 900
        #expect(!prefetched.isVisible)
        prefetched.frame?.origin.y = 844 // touching the edge: no area inside
        #expect(!prefetched.isVisible)
        prefetched.frame?.origin.y = 843
        #expect(prefetched.isVisible)
        var empty = onScreen()
        empty.frame?.size = .zero
        #expect(!empty.isVisible)
    }

    @Test("a carousel's cell scrolled out of its collection view, still inside the window: not visible")
    func clippedByAScrollView() {
        var cell = onScreen()
        // The carousel: 390x120 pt at y = 300, clipping its cells; this one scrolled to its right.
        cell.frame = CGRect(x: 420, y: 310, width: 100, height: 100)
        cell.clips = [CGRect(x: 0, y: 300, width: 390, height: 120), CGRect(x: 0, y: 0, width: 390, height: 844)]
        #expect(!cell.isVisible)
        cell.frame?.origin.x = 300
        #expect(cell.isVisible)
        #expect(cell.visibleRect == CGRect(x: 300, y: 310, width: 90, height: 100))
    }

    @Test("macOS: an occluded or miniaturised window; the app's didEndDisplaying: not visible")
    func windowAndApp() {
        var occluded = onScreen()
        occluded.isWindowSeen = false
        #expect(!occluded.isVisible)
        var ended = onScreen()
        ended.isDisplayed = false
        #expect(!ended.isVisible)
        ended.isDisplayed = true // willDisplay
        #expect(ended.isVisible)
    }

    @Test("a player that follows the view's visibility: frames stop advancing and decoding while unseen, then resume from the frame they paused on")
    func playerStopsWhileUnseen() async throws {
        try await withScriptedFixture { fixture in
            let gif = ImageFixtures.animatedGIF(width: 8, height: 8, delays: [10, 10, 10, 10, 10, 10], loopCount: 0)
            fixture.server.serve("/a.gif", .ok(gif, contentType: "image/gif"))
            let pipeline = fixture.makePipeline()
            let clock = ManualUptimeClock()
            let factory = FakeSourceFactory()
            let player = AnimationPlayer<FakeFrameSource>(clock: clock, makeSource: { factory.make($0, $1) })
            var visibility = onScreen()
            player.setVisible(visibility.isVisible)
            player.load(ImageRequest(url: fixture.url("/a.gif")), pipeline: pipeline)
            await clock.waitForSleepers(1)
            clock.advance(by: 0.1)
            #expect(await waitUntil(player) { player.displayedFrame == 1 })
            await clock.waitForSleepers(1)
            let source = try #require(factory.sources.first)
            let decodes = source.decodeCount

            // The collection view hides the cell it keeps for reuse: the periodic check sees it.
            visibility.isHidden = true
            player.setVisible(visibility.isVisible)
            #expect(!player.isPlaying)
            await clock.waitForSleepers(0)
            clock.advance(by: 10)
            for _ in 0..<100 { await Task.yield() }
            #expect(player.displayedFrame == 1)
            #expect(source.decodeCount == decodes)
            #expect(player.bufferedFrames == [1], "only the frame on screen is kept")

            // Shown again: it goes on from frame 1, not from where 10 s of play would be.
            visibility.isHidden = false
            player.setVisible(visibility.isVisible)
            #expect(player.isPlaying)
            await clock.waitForSleepers(1)
            clock.advance(by: 0.1)
            #expect(await waitUntil(player) { player.displayedFrame == 2 })
            #expect(source.decodeCount > decodes)
        }
    }
}
