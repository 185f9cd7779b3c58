import CachedImageCore
import Foundation
import ImageFixtures

/// Table 8: frame memory per animated image player (issue 27): a generated 100-frame GIF played through
/// core's `AnimationPlayer` (what `CachedAnimatedImage` and `CachedAnimatedImageView` drive),
/// loaded through a pipeline from a file, on the real clock. Frames are real bitmaps of
/// width x height x 4 bytes (what ImageIO hands the player on Apple platforms); the figures are
/// the player's frame buffer and the memory-cache entry that accounts for it.
struct AnimationMemoryBench {
    let options: BenchOptions

    /// A frame source whose frames are allocated, zero-filled bitmaps of the GIF's size.
    final class BitmapFrameSource: AnimationFrameSource, Sendable {
        let info: AnimatedImageInfo
        let bytesPerFrame: Int

        init?(data: Data) {
            guard let info = AnimatedImageInfo(data: data), let size = ImageInfo(data: data)?.pixelSize else { return nil }
            self.info = info
            bytesPerFrame = size.width * size.height * 4
        }

        func frame(at index: Int) -> [UInt8]? {
            [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: bytesPerFrame)
        }

        func cost(of frame: [UInt8]) -> Int { frame.count }
    }

    @MainActor
    func run(root: URL) async throws {
        let sides = options.pick(quick: [120, 480], full: [120, 240, 480])
        var table = Table(
            "8. Frame memory per player, 100-frame GIF (16 MB frame buffer limit)",
            columns: ["Frame size", "One frame", "Whole loop", "Playing", "Accounted in cache", "Paused", "Two players of one URL (cache)"]
        )
        for side in sides {
            let gif = ImageFixtures.animatedGIF(width: side, height: side, delays: Array(repeating: 2, count: 100), loopCount: 0)
            let file = root.appendingPathComponent("animation-\(side).gif")
            try gif.write(to: file)
            var configuration = ImagePipeline.Configuration()
            configuration.diskCacheDirectory = nil
            let pipeline = ImagePipeline(configuration: configuration)
            let request = ImageRequest(url: file)
            let players = (0..<2).map { _ in
                AnimationPlayer<BitmapFrameSource>(makeSource: { data, _ in BitmapFrameSource(data: data) })
            }
            for player in players {
                player.setVisible(true)
                player.load(request, pipeline: pipeline)
            }
            // One pass is 100 x 20 ms; play two and a half (a frame skipped by a late wake-up
            // in one pass is decoded in the next).
            try await Task.sleep(nanoseconds: 5_000_000_000)
            let player = players[0]
            let frameBytes = side * side * 4
            let playing = player.bufferedCost
            let accounted = player.frameCostKey.flatMap { pipeline.memoryCache?.value(forKey: $0)?.cost } ?? 0
            let bothAccounted = players.compactMap { $0.frameCostKey.flatMap { pipeline.memoryCache?.value(forKey: $0)?.cost } }.reduce(0, +)
            player.setRequestedPlaying(false)
            let paused = player.bufferedCost
            for player in players { player.load(nil, pipeline: pipeline) }
            table.add([
                "\(side) x \(side)",
                Format.bytes(frameBytes),
                Format.bytes(frameBytes * 100),
                Format.bytes(playing),
                Format.bytes(accounted),
                Format.bytes(paused),
                Format.bytes(bothAccounted),
            ])
        }
        table.print(note: "Playing: after 2.5 passes at the file's speed (20 ms frames). Paused: `stopAnimating()` / `isAnimating = false` (also what leaving the screen, the background and a memory warning leave).")
    }
}

extension Format {
    /// `1.5 MB`, `240 KB`, `512 B` (powers of 1024).
    static func bytes(_ count: Int) -> String {
        let value = Double(count)
        if value >= 1_048_576 { return number(value / 1_048_576, 1) + " MB" }
        if value >= 1_024 { return number(value / 1_024, 0) + " KB" }
        return "\(count) B"
    }
}
