import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

@Suite("Animation: frame counts, delays and loop counts")
struct AnimatedImageInfoTests {
    @Test("a GIF's frames, delays (centiseconds) and NETSCAPE loop count")
    func gif() throws {
        let data = ImageFixtures.animatedGIF(width: 16, height: 8, delays: [5, 20, 150], loopCount: 3)
        #expect(ImageInfo(data: data)?.format == .gif)
        let info = try #require(AnimatedImageInfo(data: data))
        #expect(info.format == .gif)
        #expect(info.frameCount == 3)
        #expect(info.frameDelays == [0.05, 0.2, 1.5])
        #expect(info.loopCount == 3)
        #expect(abs(info.duration - 1.75) < 1e-9)
    }

    @Test("browsers' rule: a delay of 10 ms or less (0 included) is shown for 100 ms")
    func tinyDelays() throws {
        let gif = try #require(AnimatedImageInfo(data: ImageFixtures.animatedGIF(width: 4, height: 4, delays: [0, 1, 2])))
        #expect(gif.frameDelays == [0.1, 0.1, 0.02])
        #expect(gif.loopCount == 0)

        let apng = try #require(AnimatedImageInfo(data: ImageFixtures.apng(width: 4, height: 4, delays: [(0, 0), (1, 100), (11, 1000)])))
        #expect(apng.frameDelays == [0.1, 0.1, 0.011])

        let webp = try #require(AnimatedImageInfo(data: ImageFixtures.animatedWebP(width: 4, height: 4, durations: [0, 10, 11])))
        #expect(webp.frameDelays == [0.1, 0.1, 0.011])
    }

    @Test("a GIF without a loop extension plays once")
    func gifWithoutLoopExtension() throws {
        let info = try #require(AnimatedImageInfo(data: ImageFixtures.animatedGIF(width: 4, height: 4, delays: [10, 10], loopCount: nil)))
        #expect(info.loopCount == 1)
    }

    @Test("an APNG's frames, delays (numerator / denominator, 0 denominator = 1/100 s) and plays")
    func apng() throws {
        let data = ImageFixtures.apng(width: 12, height: 10, delays: [(1, 2), (30, 0), (250, 1000)], plays: 2)
        #expect(ImageInfo(data: data)?.pixelSize == PixelSize(width: 12, height: 10))
        let info = try #require(AnimatedImageInfo(data: data))
        #expect(info.format == .png)
        #expect(info.frameDelays == [0.5, 0.3, 0.25])
        #expect(info.loopCount == 2)
    }

    @Test("an animated WebP's frames, durations (ms) and ANIM loop count")
    func webp() throws {
        let data = ImageFixtures.animatedWebP(width: 20, height: 10, durations: [40, 80, 120, 500], loopCount: 7)
        #expect(ImageInfo(data: data)?.pixelSize == PixelSize(width: 20, height: 10))
        let info = try #require(AnimatedImageInfo(data: data))
        #expect(info.format == .webp)
        #expect(info.frameDelays == [0.04, 0.08, 0.12, 0.5])
        #expect(info.loopCount == 7)
    }

    @Test("still images and other formats are not animations")
    func stillImages() {
        #expect(AnimatedImageInfo(data: ImageFixtures.gif(width: 8, height: 8)) == nil)
        #expect(AnimatedImageInfo(data: ImageFixtures.png(width: 8, height: 8)) == nil)
        #expect(AnimatedImageInfo(data: ImageFixtures.jpeg(width: 8, height: 8)) == nil)
        #expect(AnimatedImageInfo(data: ImageFixtures.animatedGIF(width: 4, height: 4, delays: [10])) == nil)
    }

    @Test("a truncated or lying container gives nil, never a partial animation")
    func truncated() {
        let gif = ImageFixtures.animatedGIF(width: 8, height: 8, delays: [10, 10, 10])
        let apng = ImageFixtures.apng(width: 8, height: 8, delays: [(1, 10), (1, 10)])
        let webp = ImageFixtures.animatedWebP(width: 8, height: 8, durations: [100, 100])
        for data in [gif, apng, webp] {
            for cut in stride(from: 1, to: data.count, by: max(1, data.count / 40)) {
                #expect(AnimatedImageInfo(data: data.prefix(cut)) == nil, "cut at \(cut) of \(data.count)")
            }
        }
        // An acTL that declares more frames than the file has.
        var lying = apng
        let acTL = lying.range(of: Data("acTL".utf8))!
        lying[acTL.upperBound + 3] = 5
        #expect(AnimatedImageInfo(data: lying) == nil)
    }
}
