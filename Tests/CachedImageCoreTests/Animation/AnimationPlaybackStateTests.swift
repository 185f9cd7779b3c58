import Foundation
import Testing
@testable import CachedImageCore

@Suite("Animation: the playback state machine")
struct AnimationPlaybackStateTests {
    /// Three frames of 100 s, forever: nothing finishes within these tests' seconds.
    private let slowForever = AnimatedImageInfo(format: .gif, frameDelays: [100, 100, 100], loopCount: 0)

    private enum Event: CaseIterable {
        case bytesArrive, pause, resume, attach, detach, background, foreground
    }

    @Test("every order of bytes arriving, pause, resume, attach, detach, background and foreground: it advances exactly while all conditions hold, and only then does time play")
    func everyOrder() {
        var orders = 0
        for order in permutations(Event.allCases) {
            orders += 1
            var playback = AnimationPlayback()
            var now: TimeInterval = 50
            // An independent model of the rules.
            var requested = true, visible = false, active = true, frames = false
            var played: TimeInterval = 0
            for event in order {
                switch event {
                case .bytesArrive:
                    playback.setAnimation(slowForever, at: now); frames = true; played = 0
                case .pause: playback.setRequestedPlaying(false, at: now); requested = false
                case .resume: playback.setRequestedPlaying(true, at: now); requested = true
                case .attach: playback.setVisible(true, at: now); visible = true
                case .detach: playback.setVisible(false, at: now); visible = false
                case .background: playback.setAppActive(false, at: now); active = false
                case .foreground: playback.setAppActive(true, at: now); active = true
                }
                let expected = requested && visible && active && frames
                #expect(playback.isRunning == expected, "\(order) after \(event)")
                #expect(playback.elapsed(at: now) == played, "\(order) after \(event)")
                now += 1
                if expected { played += 1 }
                #expect(playback.elapsed(at: now) == played, "\(order): one second after \(event)")
            }
        }
        #expect(orders == 5_040)
    }

    @Test("set before attached to a window: loading while detached does not play, attaching does")
    func setBeforeAttached() {
        var playback = AnimationPlayback()
        playback.setAnimation(slowForever, at: 0)
        #expect(!playback.isRunning)
        playback.setVisible(true, at: 5)
        #expect(playback.isRunning)
        #expect(playback.elapsed(at: 5) == 0)
        #expect(playback.elapsed(at: 7) == 2)
    }

    @Test("hidden before the bytes arrive: they arrive to a paused animation")
    func hiddenBeforeBytes() {
        var playback = AnimationPlayback()
        playback.setVisible(true, at: 0)
        playback.setVisible(false, at: 1)
        playback.setAnimation(slowForever, at: 2)
        #expect(!playback.isRunning)
        #expect(playback.elapsed(at: 100) == 0)
    }

    @Test("background then foreground with a finite loop count: background time is not played, so the animation resumes where it was instead of having finished")
    func backgroundWithFiniteLoops() throws {
        var playback = AnimationPlayback()
        playback.setVisible(true, at: 0)
        playback.setAnimation(AnimatedImageInfo(format: .gif, frameDelays: [0.1, 0.1, 0.1], loopCount: 1), at: 0)
        #expect(playback.position(at: 0.15).frame == 1)
        playback.setAppActive(false, at: 0.15)
        playback.setAppActive(true, at: 3_600)
        #expect(!playback.isFinished)
        #expect(playback.position(at: 3_600).frame == 1)
        #expect(abs(playback.elapsed(at: 3_600.1) - 0.25) < 1e-9)
        playback.settle(at: 3_600.2)
        #expect(playback.isFinished)
        #expect(!playback.isRunning)
        #expect(playback.position(at: 9_999).frame == 2)
        // A finished animation plays again only when asked again.
        playback.setVisible(false, at: 4_000)
        playback.setVisible(true, at: 4_001)
        #expect(playback.isFinished && !playback.isRunning)
        playback.setRequestedPlaying(false, at: 4_002)
        playback.setRequestedPlaying(true, at: 4_003)
        #expect(!playback.isFinished && playback.isRunning)
        #expect(playback.position(at: 4_003).frame == 0)
    }

    @Test("Reduce Motion holds the frame; turning it off resumes from there")
    func reduceMotion() {
        var playback = AnimationPlayback()
        playback.setVisible(true, at: 0)
        playback.setReduceMotionEnabled(true, at: 0)
        playback.setAnimation(slowForever, at: 0)
        #expect(!playback.isRunning)
        playback.setReduceMotionEnabled(false, at: 10)
        #expect(playback.isRunning)
        #expect(playback.elapsed(at: 12) == 2)
    }

    @Test("speed scales played time from the moment it changes; 0 holds the frame")
    func speed() {
        var playback = AnimationPlayback()
        playback.setVisible(true, at: 0)
        playback.setAnimation(slowForever, at: 0)
        playback.setSpeed(2, at: 10)
        #expect(playback.elapsed(at: 11) == 12)
        #expect(playback.clockTime(reaching: 100) == 10 + 90.0 / 2)
        playback.setSpeed(0, at: 11)
        #expect(!playback.isRunning)
        #expect(playback.elapsed(at: 50) == 12)
    }

    @Test("a loop count override replaces the file's: 1 finishes a forever-GIF after one pass; 0 un-finishes a finished one")
    func loopCountOverride() {
        var playback = AnimationPlayback()
        playback.setVisible(true, at: 0)
        playback.setAnimation(AnimatedImageInfo(format: .gif, frameDelays: [1, 1], loopCount: 0), at: 0)
        playback.setLoopCountOverride(1, at: 0)
        playback.settle(at: 2.5)
        #expect(playback.isFinished)
        #expect(playback.position(at: 2.5).frame == 1)
        playback.setLoopCountOverride(0, at: 3)
        #expect(!playback.isFinished && playback.isRunning)
    }

    @Test("new bytes (a new image) start the timeline from the beginning")
    func newImageRestarts() {
        var playback = AnimationPlayback()
        playback.setVisible(true, at: 0)
        playback.setAnimation(slowForever, at: 0)
        #expect(playback.elapsed(at: 30) == 30)
        playback.setAnimation(nil, at: 30)
        #expect(!playback.isRunning)
        playback.setAnimation(slowForever, at: 40)
        #expect(playback.elapsed(at: 41) == 1)
    }

    private func permutations<T>(_ items: [T]) -> [[T]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index -> [[T]] in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }
}
