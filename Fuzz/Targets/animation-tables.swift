// Fuzz target "animation-tables": the frame tables of animated GIF, APNG and WebP (frame count,
// delays, loop count) and the playback timeline built from them.
@testable import CachedImageCore
import Foundation
import ImageFixtures

enum FuzzTarget {
    static let elapsed: [TimeInterval] = [0, 0.016, 1, 59.9, 3_600, 1e9, .greatestFiniteMagnitude, .infinity, .nan]

    static func run(_ data: Data) {
        // Every parser sees every input, whatever its signature says.
        let parsed = [AnimatedImageParser.gif(data), AnimatedImageParser.apng(data), AnimatedImageParser.webp(data), AnimatedImageInfo(data: data)]
        for case let info? in parsed {
            let timeline = AnimationTimeline(info)
            for time in elapsed {
                _ = timeline.position(at: time)
            }
        }
    }

    static func seeds() -> [String: Data] {
        [
            "gif": ImageFixtures.animatedGIF(width: 8, height: 6, delays: [0, 1, 5, 100], loopCount: 3),
            "gif-no-loop": ImageFixtures.animatedGIF(width: 4, height: 4, delays: [10, 10], loopCount: nil),
            "apng": ImageFixtures.apng(width: 8, height: 6, delays: [(1, 10), (0, 0), (65535, 1)], plays: 2),
            "webp": ImageFixtures.animatedWebP(width: 8, height: 6, durations: [0, 40, 1_000], loopCount: 5),
            "still-gif": ImageFixtures.gif(width: 8, height: 6),
            "still-png": ImageFixtures.png(width: 8, height: 6, seed: 1),
        ]
    }
}
