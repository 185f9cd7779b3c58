import CachedImageCore
import Foundation
import ImageFixtures

/// Table 9: relaunch cost of a thumbnail grid with each `DiskCachePolicy`. Originals are on
/// disk (fresh); a first launch shows the grid once (writing derived entries where the policy
/// says so); then every round is a relaunch: a new pipeline with an empty memory cache loads the
/// whole grid (all cells at once, like a `LazyVGrid` appearing).
struct ThumbnailRelaunchBench {
    let options: BenchOptions
    let root: URL

    var imageCount: Int { options.pick(quick: 16, full: 40) }
    var rounds: Int { options.pick(quick: 3, full: 9) }
    let originalSize = PixelSize(width: 1200, height: 900)
    let cellSize = PixelSize(width: 192, height: 192)

    func run() async throws {
        let originals = (0..<imageCount).map { index in
            ImageFixtures.png(width: originalSize.width, height: originalSize.height, seed: UInt64(index))
        }
        let urls = (0..<imageCount).map { URL(string: "https://images.example/grid/\($0).png")! }
        let codec = PixelPNGCodec()
        let originalBytes = originals.reduce(0) { $0 + $1.count }

        var table = Table(
            "9. Thumbnail grid relaunch by disk policy (\(imageCount) PNG originals \(originalSize), \(originalBytes / imageCount / 1024) KB each, cells \(cellSize), \(rounds) relaunches)",
            columns: ["policy", "grid p50 (ms)", "grid p90 (ms)", "per image p50 (ms)", "vs .original", "bytes read per relaunch", "disk footprint", "first launch (ms)"]
        )
        var baseline = Double.nan
        for (name, policy) in [(".original", ImagePipeline.DiskCachePolicy.original), (".processed", .processed), (".automatic", .automatic)] {
            let directory = root.appendingPathComponent("thumbnails-\(name.dropFirst())")
            let cache = try DiskCache(directory: directory, sizeLimit: 2_000_000_000)
            let metadata = CachedResponseMetadata(contentType: "image/png", etag: "\"v1\"", storedAt: Date(), freshnessLifetime: 365 * 86_400)
            for (url, data) in zip(urls, originals) {
                cache.store(data, metadata: metadata, forKey: url.absoluteString)
            }
            cache.flush()

            func launch() -> ImagePipeline {
                var configuration = ImagePipeline.Configuration()
                configuration.diskCacheDirectory = directory
                configuration.diskCacheSizeLimit = 2_000_000_000
                configuration.decoder = codec
                configuration.encoder = codec
                configuration.diskCachePolicy = policy
                return ImagePipeline(configuration: configuration)
            }
            let requests = urls.map { ImageRequest(url: $0, targetPixelSize: cellSize) }
            func showGrid(_ pipeline: ImagePipeline) async throws -> [ImageResponse] {
                try await withThrowingTaskGroup(of: ImageResponse.self) { group in
                    for request in requests { group.addTask { try await pipeline.image(for: request) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }

            let first = launch()
            let firstStart = Stopwatch.nanos()
            _ = try await showGrid(first)
            let firstLaunch = Double(Stopwatch.nanos() - firstStart) / 1e6
            first.diskCache?.flush()
            let footprint = first.diskCache?.totalSize ?? 0

            var grid = Samples()
            var lastResponses: [ImageResponse] = []
            for _ in 0..<rounds {
                let pipeline = launch()
                let start = Stopwatch.nanos()
                lastResponses = try await showGrid(pipeline)
                grid.add(Double(Stopwatch.nanos() - start) / 1e6)
                precondition(lastResponses.allSatisfy { $0.source == .disk }, "expected disk hits")
            }
            // What a relaunch reads: each cell's derived entry (the thumbnail's bytes), or its original.
            let thumbnailBytes = try codec.encode(lastResponses[0].image).count
            let bytesRead = policy == .original ? originalBytes : thumbnailBytes * imageCount
            if policy == .original { baseline = grid.percentile(0.5) }
            table.add([
                name,
                Format.number(grid.percentile(0.5), 1),
                Format.number(grid.percentile(0.9), 1),
                Format.number(grid.percentile(0.5) / Double(imageCount), 2),
                Format.ratio(grid.percentile(0.5), to: baseline),
                Format.grouped(bytesRead),
                Format.grouped(footprint),
                Format.number(firstLaunch, 1),
            ])
        }
        table.print(note: "Decoder/encoder: PixelPNGCodec (reads every source pixel and box-filters it; ImageIO does not exist on Linux). Originals stay on disk with every policy; `.processed`/`.automatic` add a derived entry per cell size (here 192x144 stored PNG), read with a small version entry that carries the original's freshness. Files come from the OS page cache (in-process relaunch).")
    }
}
