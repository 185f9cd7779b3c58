import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

@Suite("Animation: timeline and bounded frame buffer")
struct AnimationPlaybackTests {
    private let info = AnimatedImageInfo(format: .gif, frameDelays: [0.1, 0.2, 0.3], loopCount: 0)

    @Test("the frame on screen follows elapsed time; late players skip frames instead of slowing down")
    func timeline() {
        let timeline = AnimationTimeline(info)
        #expect(timeline.position(at: 0) == .init(frame: 0, nextChange: 0.1, completedLoops: 0))
        #expect(timeline.position(at: 0.15).frame == 1)
        #expect(abs((timeline.position(at: 0.15).nextChange ?? 0) - 0.3) < 1e-9)
        #expect(timeline.position(at: 0.45).frame == 2)
        // Second pass: 0.6 s per pass.
        let secondPass = timeline.position(at: 0.65)
        #expect(secondPass.frame == 0 && secondPass.completedLoops == 1)
        #expect(abs((secondPass.nextChange ?? 0) - 0.7) < 1e-9)
        // A player that was away for 10.05 s lands where the clock says, not on the next frame.
        #expect(timeline.position(at: 10.05).frame == 2) // 10.05 - 16 * 0.6 = 0.45
    }

    @Test("a finite loop count ends on the last frame with no further change")
    func finiteLoops() {
        let timeline = AnimationTimeline(AnimatedImageInfo(format: .png, frameDelays: [0.1, 0.1], loopCount: 2))
        #expect(timeline.position(at: 0.35).frame == 1)
        #expect(timeline.position(at: 0.35).nextChange != nil)
        let end = timeline.position(at: 0.4)
        #expect(end == .init(frame: 1, nextChange: nil, completedLoops: 2))
        #expect(timeline.position(at: 99).nextChange == nil)
    }

    @Test("any clock reading gives a position: NaN, infinite and absurd elapsed times never trap (found by fuzzing)")
    func anyElapsedTime() {
        for loopCount in [0, 1, 3] {
            let timeline = AnimationTimeline(AnimatedImageInfo(format: .gif, frameDelays: [0.1, 0.2], loopCount: loopCount))
            for elapsed in [TimeInterval.nan, -.infinity, .infinity, .greatestFiniteMagnitude, 1e300, -5] {
                let position = timeline.position(at: elapsed)
                #expect((0..<2).contains(position.frame), "\(elapsed)")
            }
            #expect(timeline.position(at: .nan).frame == 0)
        }
    }

    @Test("tiny delays play at 100 ms on the timeline")
    func tinyDelaysOnTimeline() throws {
        let data = ImageFixtures.animatedGIF(width: 4, height: 4, delays: [0, 0, 0])
        let timeline = AnimationTimeline(try #require(AnimatedImageInfo(data: data)))
        #expect(timeline.position(at: 0.05).frame == 0)
        #expect(timeline.position(at: 0.15).frame == 1)
        #expect(timeline.position(at: 0.25).frame == 2)
    }

    @Test("a loop that fits the budget is kept whole")
    func wholeLoopKept() {
        var buffer = AnimationFrameBuffer<String>(frameCount: 4, costLimit: 400)
        for index in 0..<4 { buffer.insert("f\(index)", at: index, cost: 100, current: index) }
        #expect(buffer.indices == [0, 1, 2, 3])
        #expect(buffer.totalCost == 400)
    }

    @Test("over budget, the frame needed furthest in the future goes first and the frame on screen stays")
    func boundedBuffer() {
        var buffer = AnimationFrameBuffer<String>(frameCount: 10, costLimit: 250)
        for index in 0..<10 {
            buffer.insert("f\(index)", at: index, cost: 100, current: index)
            #expect(buffer.totalCost <= 250)
            #expect(buffer.frame(at: index) == "f\(index)")
        }
        // On frame 9 with frame 0 prefetched: 9 (on screen) and 0 (next) are kept.
        buffer.insert("f0", at: 0, cost: 100, current: 9)
        #expect(buffer.indices == [0, 9])
        // Memory pressure: only the frame on screen remains.
        buffer.trim(toCost: 0, current: 9)
        #expect(buffer.indices == [9])
        #expect(buffer.totalCost == 100)
    }
}
