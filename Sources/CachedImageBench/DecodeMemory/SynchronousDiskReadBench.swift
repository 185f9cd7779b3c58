import CachedImageCore
import Foundation
import ImageFixtures

/// Table 11: the first frame's synchronous disk read (issue 26): `firstFrameImage(for:)` on a
/// relaunched pipeline (empty memory cache), each call reading one fresh entry from disk and
/// decoding it with real pixel work (`PixelPNGCodec`), by entry size; and what a frame can
/// spend on it under the per-frame budget.
struct SynchronousDiskReadBench {
    let options: BenchOptions
    let root: URL

    var rounds: Int { options.pick(quick: 3, full: 9) }
    /// Thumbnail sides: stored-deflate RGB PNGs of about side^2 x 3 bytes (147 px is 64 KB).
    let sides = [16, 32, 48, 64, 96, 128, 144]
    let perSide = 12

    func run() throws {
        let directory = root.appendingPathComponent("first-frame-disk")
        let cache = try DiskCache(directory: directory, sizeLimit: 2_000_000_000)
        let metadata = CachedResponseMetadata(contentType: "image/png", etag: "\"v1\"", storedAt: Date(), freshnessLifetime: 365 * 86_400)
        var entries: [(side: Int, url: URL, bytes: Int)] = []
        for side in sides + [200] {
            for index in 0..<perSide {
                let url = URL(string: "https://images.example/thumb/\(side)/\(index).png")!
                let png = ImageFixtures.png(width: side, height: side, seed: UInt64(side * 100 + index))
                cache.store(png, metadata: metadata, forKey: url.absoluteString)
                entries.append((side, url, png.count))
            }
        }
        cache.flush()
        var measuring = ImagePipeline.SynchronousDiskRead.default
        measuring.timePerFrame = 10  // measure every read; the budget is applied below
        func relaunch() -> ImagePipeline {
            var configuration = ImagePipeline.Configuration()
            configuration.diskCacheDirectory = directory
            configuration.diskCacheSizeLimit = 2_000_000_000
            configuration.decoder = PixelPNGCodec()
            configuration.synchronousDiskRead = measuring
            return ImagePipeline(configuration: configuration)
        }
        var bySide: [Int: Samples] = [:]
        var eligible = Samples()
        var rejected = Samples()
        for _ in 0..<rounds {
            let pipeline = relaunch()
            for entry in entries.shuffled() {
                let request = ImageRequest(url: entry.url)
                let start = Stopwatch.nanos()
                let response = pipeline.firstFrameImage(for: request)
                let micros = Double(Stopwatch.nanos() - start) / 1_000
                if entry.side == 200 {
                    precondition(response == nil, "a 120 KB entry is above the 64 KB limit")
                    rejected.add(micros)
                } else {
                    precondition(response?.source == .disk, "expected a synchronous disk read")
                    bySide[entry.side, default: Samples()].add(micros)
                    eligible.add(micros)
                }
            }
        }
        var table = Table(
            "11. First frame after a relaunch: synchronous disk read + decode, µs per image (\(rounds) relaunches x \(perSide) images per size)",
            columns: ["entry", "bytes on disk", "decoded", "p50 (µs)", "p99 (µs)"]
        )
        for side in sides {
            let bytes = entries.first { $0.side == side }?.bytes ?? 0
            let samples = bySide[side] ?? Samples()
            table.add(["\(side)x\(side) PNG", Format.grouped(bytes), Format.grouped(side * side * 4), Format.number(samples.percentile(0.5), 0), Format.number(samples.percentile(0.99), 0)])
        }
        table.add(["all eligible", "≤ 64 KB", "≤ 1 MB", Format.number(eligible.percentile(0.5), 0), Format.number(eligible.percentile(0.99), 0)])
        table.add(["200x200 PNG (too large: one stat, then asynchronous)", Format.grouped(entries.last?.bytes ?? 0), "-", Format.number(rejected.percentile(0.5), 1), Format.number(rejected.percentile(0.99), 1)])
        let rule = ImagePipeline.SynchronousDiskRead.default
        let frameMs = rule.frameInterval * 1_000
        let worstFrameMs = rule.timePerFrame * 1_000 + eligible.percentile(0.99) / 1_000
        table.print(note: "Rule (defaults): entries of at most \(rule.maximumEntryBytes / 1024) KB on disk that decode to at most \(rule.maximumDecodedBytes / 1_048_576) MB are read in the frame while that frame's reads took less than \(Format.number(rule.timePerFrame * 1_000, 0)) ms; so at p50 about \(Int(rule.timePerFrame * 1e6 / max(1, eligible.percentile(0.5)))) images per frame, and the most one frame can add is the budget plus one read at p99: \(Format.number(worstFrameMs, 2)) ms = \(Format.number(worstFrameMs / frameMs, 2)) frames at 60 Hz. Files come from the page cache (in-process relaunch). Decoder: PixelPNGCodec (every pixel read and box-filtered; ImageIO does not exist on Linux).")
    }
}
