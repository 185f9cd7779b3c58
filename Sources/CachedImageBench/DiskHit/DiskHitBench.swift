@_spi(Benchmarks) import CachedImageCore
import Foundation
import ImageFixtures
import ToolSupport

/// Table 7: what a disk hit costs through the whole pipeline, against the simplest approach
/// that reads the same bytes from a documents directory and decodes them the same way; the
/// time to the first image on relaunch, for one image (7b) and for a screen of cells loading
/// together (7d); where a pipeline disk hit spends its time (7c); and what keeping the bytes
/// read costs either approach (7e).
struct DiskHitBench {
    let options: BenchOptions
    let root: URL

    var imageCount: Int { options.pick(quick: 120, full: 300) }
    var rounds: Int { options.pick(quick: 3, full: 9) }

    func run() async throws {
        let images = (0..<imageCount).map { index in
            ImageFixtures.jpeg(width: 480 + (index % 4) * 160, height: 360 + (index % 3) * 120, seed: UInt64(index), detail: 24)
        }
        let urls = (0..<imageCount).map { URL(string: "https://images.example/feed/\($0).jpg")! }
        let cacheDirectory = root.appendingPathComponent("diskhit-pipeline")
        let documents = try RawFileStore(directory: root.appendingPathComponent("diskhit-documents"), writing: .inPlace)
        let cache = try DiskCache(directory: cacheDirectory)
        let metadata = CachedResponseMetadata(contentType: "image/jpeg", etag: "\"v1\"", storedAt: Date(), freshnessLifetime: 365 * 86_400)
        for (url, data) in zip(urls, images) {
            cache.store(data, metadata: metadata, forKey: url.absoluteString)
            try documents.write(data, as: url.lastPathComponent)
        }
        cache.flush()
        let averageBytes = images.reduce(0) { $0 + $1.count } / images.count

        let targetSize = PixelSize(width: 600, height: 600)
        let decoder = HeaderImageDecoder()
        @Sendable @discardableResult func documentsHit(_ url: URL) throws -> DecodedImage {
            let data = try documents.read(url.lastPathComponent)
            guard let info = ImageInfo(data: data) else { throw CocoaError(.fileReadCorruptFile) }
            return try decoder.decode(data, info: info, targetPixelSize: targetSize)
        }
        /// A new pipeline on the cache directory; without a memory cache unless `keepsImages`
        /// (every request is then a disk hit).
        func makePipeline(trace: StageTrace? = nil, keepsImages: Bool = false) -> ImagePipeline {
            var configuration = ImagePipeline.Configuration()
            configuration.diskCacheDirectory = cacheDirectory
            if !keepsImages { configuration.memoryCacheCostLimit = 0 }
            configuration.decoder = decoder
            configuration.stageTrace = trace
            return ImagePipeline(configuration: configuration)
        }

        // 7a: steady-state disk hits, interleaved image by image, alternating which goes first.
        var viaImage = Samples(), viaTask = Samples(), baseline = Samples()
        do {
        let pipeline = makePipeline()
        for url in urls.prefix(10) { // warm-up
            _ = try await pipeline.image(for: ImageRequest(url: url, targetPixelSize: targetSize))
            try documentsHit(url)
        }
        for round in 0..<rounds {
            for (index, url) in urls.enumerated() {
                let request = ImageRequest(url: url, targetPixelSize: targetSize)
                func measurePipeline() async throws {
                    var start = Stopwatch.nanos()
                    let response = try await pipeline.image(for: request)
                    viaImage.add(Double(Stopwatch.nanos() - start) / 1e3)
                    precondition(response.source == .disk, "expected a disk hit, got \(response.source)")
                    start = Stopwatch.nanos()
                    _ = try await pipeline.imageTask(with: request).response
                    viaTask.add(Double(Stopwatch.nanos() - start) / 1e3)
                }
                if (round + index) % 2 == 0 {
                    try await measurePipeline()
                    baseline.add(Double(try Stopwatch.time { try documentsHit(url) }) / 1e3)
                } else {
                    baseline.add(Double(try Stopwatch.time { try documentsHit(url) }) / 1e3)
                    try await measurePipeline()
                }
            }
        }
        }
        // The pipeline is gone, and with it the process's disk cache for the directory: each 7b
        // round opens the cache anew, as a relaunch does.
        var table = Table(
            "7a. Disk hit through the pipeline vs documents directory (\(imageCount) JPEGs, \(averageBytes / 1024) KB average, \(rounds) rounds, µs)",
            columns: ["path", "p50", "p90", "p99", "p50 vs documents dir", "p99 vs documents dir"]
        )
        for (name, samples) in [
            ("`pipeline.image(for:)` (memory cache off)", viaImage),
            ("`pipeline.imageTask(with:).response`", viaTask),
            ("documents dir: read file + same decode", baseline),
        ] {
            table.add([
                name, Format.number(samples.percentile(0.5), 1), Format.number(samples.percentile(0.9), 1),
                Format.number(samples.percentile(0.99), 1),
                Format.number(samples.percentile(0.5) / baseline.percentile(0.5), 2) + "x",
                Format.number(samples.percentile(0.99) / baseline.percentile(0.99), 2) + "x",
            ])
        }
        table.print(note: "Targets: pipeline p50 at most 1.5x the documents directory's, p99 at most 2x. Both decode with `HeaderImageDecoder`; the pipeline also verifies the entry's key and checksum.")

        // 7b: relaunch: open the cache and show the first image.
        var relaunch = Samples(), creation = Samples(), firstImage = Samples(), relaunchBaseline = Samples()
        weak var previousCache: DiskCache?
        for round in 0..<rounds * 5 {
            precondition(previousCache == nil, "the last round's disk cache outlived its pipeline: this round would not open it anew")
            let url = urls[(round * 7) % urls.count]
            let start = Stopwatch.nanos()
            let fresh = makePipeline()
            let created = Stopwatch.nanos()
            previousCache = fresh.diskCache
            let response = try await fresh.image(for: ImageRequest(url: url, targetPixelSize: targetSize))
            let end = Stopwatch.nanos()
            precondition(response.source == .disk, "expected a disk hit, got \(response.source)")
            relaunch.add(Double(end - start) / 1e3)
            creation.add(Double(created - start) / 1e3)
            firstImage.add(Double(end - created) / 1e3)
            relaunchBaseline.add(Double(try Stopwatch.time { try documentsHit(url) }) / 1e3)
        }
        // The rounds never load the index (a relaunch's first reads do not wait for it): one
        // more opening loads it, and it must come from the snapshot the rounds relaunched over.
        precondition(makePipeline().diskCache?.indexSource == .snapshot, "expected the cache to open from its snapshot")
        var relaunchTable = Table(
            "7b. Time to first image on relaunch (\(imageCount) entries on disk, \(rounds * 5) relaunches, µs)",
            columns: ["path", "median (min-max)", "vs documents dir"]
        )
        relaunchTable.add(["new `ImagePipeline` + first `image(for:)`", relaunch.summary(0),
                           Format.number(relaunch.median / relaunchBaseline.median, 2) + "x"])
        relaunchTable.add(["  of which `ImagePipeline(configuration:)` (opens the disk cache)", creation.summary(0), ""])
        relaunchTable.add(["  of which the first `image(for:)`", firstImage.summary(0), ""])
        relaunchTable.add(["documents dir: first read + decode", relaunchBaseline.summary(0), "1.00x"])
        relaunchTable.print(note: "Target: at most 1.5x the documents directory's. Opening the disk cache does not load its index (a write, a count or the 64th read does); the first read goes straight to the entry file. No round loads the index; after the rounds one more opening does, and it must come from the snapshot.")

        // 7d: a screen of cells on relaunch: a new pipeline (memory cache on), 12 cells loading
        // together in a task group, as a grid appears; the documents directory loads the same
        // 12 files the same way. Alternating which goes first.
        var screenFirst = Samples(), screenCell = Samples(), docsFirst = Samples(), docsCell = Samples()
        /// Loads `urls` together, one child task each; adds the time from `start` to the first
        /// image to `first` and each cell's own time to `cells`.
        func loadScreen(
            _ urls: [URL], since start: UInt64, first: inout Samples, cells: inout Samples,
            _ load: @escaping @Sendable (URL) async throws -> Void
        ) async throws {
            let spans = try await withThrowingTaskGroup(of: (start: UInt64, end: UInt64).self) { group in
                for url in urls {
                    group.addTask {
                        let cellStart = Stopwatch.nanos()
                        try await load(url)
                        return (cellStart, Stopwatch.nanos())
                    }
                }
                var spans: [(start: UInt64, end: UInt64)] = []
                for try await span in group { spans.append(span) }
                return spans
            }
            first.add(Double((spans.map(\.end).min() ?? start) - start) / 1e3)
            for span in spans { cells.add(Double(span.end - span.start) / 1e3) }
        }
        for round in 0..<rounds * 5 {
            let screen = (0..<12).map { urls[(round * 12 + $0) % urls.count] }
            func pipelineScreen() async throws {
                let start = Stopwatch.nanos()
                let fresh = makePipeline(keepsImages: true)
                try await loadScreen(screen, since: start, first: &screenFirst, cells: &screenCell) { url in
                    _ = try await fresh.image(for: ImageRequest(url: url, targetPixelSize: targetSize))
                }
            }
            func documentsScreen() async throws {
                try await loadScreen(screen, since: Stopwatch.nanos(), first: &docsFirst, cells: &docsCell) { url in
                    try documentsHit(url)
                }
            }
            if round % 2 == 0 {
                try await pipelineScreen()
                try await documentsScreen()
            } else {
                try await documentsScreen()
                try await pipelineScreen()
            }
        }
        var screenTable = Table(
            "7d. A screen of 12 cells on relaunch, loading together (\(rounds * 5) relaunches, µs)",
            columns: ["path", "first image median (min-max)", "vs documents dir", "cell p50", "cell p99", "cell p50 vs documents dir"]
        )
        screenTable.add(["new `ImagePipeline` (memory cache on) + 12 `image(for:)` in a task group", screenFirst.summary(0),
                         Format.number(screenFirst.median / docsFirst.median, 2) + "x",
                         Format.number(screenCell.percentile(0.5), 1), Format.number(screenCell.percentile(0.99), 1),
                         Format.number(screenCell.percentile(0.5) / docsCell.percentile(0.5), 2) + "x"])
        screenTable.add(["documents dir: the same 12 files, read + decode in a task group", docsFirst.summary(0), "1.00x",
                         Format.number(docsCell.percentile(0.5), 1), Format.number(docsCell.percentile(0.99), 1), "1.00x"])
        screenTable.print(note: "What the demo's relaunch does: the first image and every cell's latency (from its task starting to its image), as in `cachedimage demo`.")

        // 7c: where one disk hit spends its time (stage timestamps, medians over every request).
        let trace = StageTrace()
        let traced = makePipeline(trace: trace)
        var stageSamples: [StageTrace.Stage: Samples] = [:]
        var resumed = Samples()
        for _ in 0..<rounds {
            for url in urls {
                trace.reset()
                _ = try await traced.image(for: ImageRequest(url: url, targetPixelSize: targetSize))
                let end = Stopwatch.nanos()
                guard let start = trace.time(of: .started) else { continue }
                for stage in StageTrace.Stage.allCases {
                    if let time = trace.time(of: stage) {
                        stageSamples[stage, default: Samples()].add(Double(time - start) / 1e3)
                    }
                }
                resumed.add(Double(end - start) / 1e3)
            }
        }
        var stages = Table(
            "7c. One disk hit, stage by stage (`image(for:)`, medians, µs since the request started)",
            columns: ["stage", "reached at", "since previous stage"]
        )
        var previous = 0.0
        for stage in StageTrace.Stage.allCases {
            guard let samples = stageSamples[stage] else {
                stages.add(["\(stage)", "not reached", ""])
                continue
            }
            stages.add(["\(stage)", Format.number(samples.median, 1), Format.number(samples.median - previous, 1)])
            previous = samples.median
        }
        stages.add(["caller resumed", Format.number(resumed.median, 1), Format.number(resumed.median - previous, 1)])
        stages.print(note: "`diskRead` includes reading the file and verifying its key and checksum; `verified` is the header parse and freshness check.")

        // 7e: keeping what is read, through the cache the pipelines used (opened anew: every
        // pipeline is gone).
        try keepingCost(urls: urls, cache: DiskCache.shared(directory: cacheDirectory), documentsHit: documentsHit)
    }
}
