import CachedImageCore
import Foundation
import ImageFixtures
import LoopbackServer

/// Table 5: a feed of 200 images scrolled down, up, down, up, down (1,000 appearances) with 8
/// views loading at once, against a loopback server that answers after 20 ms. The pipeline
/// (first-frame `memoryCachedImage(for:)`, then `image(for:)`) versus an AsyncImage-style
/// URLSession + URLCache loader, each from empty caches.
struct EndToEndBench {
    let options: BenchOptions
    let root: URL

    let uniqueImages = 200
    let passes = 5
    let viewsInFlight = 8
    var rounds: Int { options.pick(quick: 1, full: 3) }

    /// One image appearance: which pass, how long until the image was there, and from where.
    struct Sample: Sendable {
        var pass: Int
        var milliseconds: Double
        var source: String
        var finishedAt: UInt64
    }

    struct Run {
        var wall = Samples()
        var firstImage = Samples()
        var requests: [Int] = []
        var samples: [Sample] = []
        var failures = 0
    }

    func run() async throws {
        let server = try await LoopbackServer.start(link: options.link)
        let targetSize = PixelSize(width: 600, height: 600)
        var urls: [URL] = []
        for index in 0..<uniqueImages {
            let path = "/feed/\(index).jpg"
            let body = ImageFixtures.jpeg(width: 320 + (index % 5) * 160, height: 240 + (index % 7) * 80, seed: UInt64(index))
            server.serve(path, .ok(
                body, contentType: "image/jpeg",
                headers: ["Cache-Control": "public, max-age=86400", "ETag": "\"v\(index)\""],
                latency: .milliseconds(20)
            ))
            urls.append(server.url(path))
        }
        // Down, up, down, up, down.
        var trace: [(url: URL, pass: Int)] = []
        for pass in 0..<passes {
            let order = pass % 2 == 0 ? Array(0..<uniqueImages) : Array((0..<uniqueImages).reversed())
            trace += order.map { (urls[$0], pass) }
        }

        var pipelineRun = Run()
        var baselineRun = Run()
        for round in 0..<rounds {
            // Pipeline, from empty memory and disk caches.
            var configuration = ImagePipeline.Configuration()
            configuration.diskCacheDirectory = root.appendingPathComponent("e2e-pipeline-\(round)")
            let pipeline = ImagePipeline(configuration: configuration)
            server.resetCounters()
            try await measure(trace: trace, into: &pipelineRun, server: server) { url in
                let request = ImageRequest(url: url, targetPixelSize: targetSize)
                if pipeline.memoryCachedImage(for: request) != nil { return "memory (sync first frame)" }
                return try await pipeline.image(for: request).source.rawValue
            }
            pipeline.diskCache?.flush()

            // Baseline, from an empty URLCache.
            let loader = AsyncImageStyleLoader(cacheDirectory: root.appendingPathComponent("e2e-urlcache-\(round)"))
            server.resetCounters()
            try await measure(trace: trace, into: &baselineRun, server: server) { url in
                _ = try await loader.image(for: url, targetSize: targetSize)
                return "URLSession + URLCache"
            }
        }
        await server.shutdown()
        report(pipeline: pipelineRun, baseline: baselineRun)
    }

    private func measure(
        trace: [(url: URL, pass: Int)], into run: inout Run, server: LoopbackServer,
        load: @escaping @Sendable (URL) async throws -> String
    ) async throws {
        let start = Stopwatch.nanos()
        var samples: [Sample] = []
        var failures = 0
        try await withThrowingTaskGroup(of: Sample?.self) { group in
            var next = 0
            func enqueue() {
                let (url, pass) = trace[next]
                next += 1
                group.addTask {
                    let begin = Stopwatch.nanos()
                    guard let source = try? await load(url) else { return nil }
                    let end = Stopwatch.nanos()
                    return Sample(pass: pass, milliseconds: Double(end - begin) / 1e6, source: source, finishedAt: end)
                }
            }
            while next < min(viewsInFlight, trace.count) { enqueue() }
            while let result = try await group.next() {
                if let result { samples.append(result) } else { failures += 1 }
                if next < trace.count { enqueue() }
            }
        }
        let end = Stopwatch.nanos()
        run.wall.add(Double(end - start) / 1e6)
        run.firstImage.add(Double((samples.map(\.finishedAt).min() ?? end) - start) / 1e6)
        run.requests.append(server.totalRequestCount)
        run.samples += samples
        run.failures += failures
    }

    private func report(pipeline: Run, baseline: Run) {
        var table = Table(
            "5a. End to end: 1,000 appearances of 200 images, 8 in flight, 20 ms server latency (\(rounds) round\(rounds == 1 ? "" : "s"), fresh caches each)",
            columns: ["loader", "wall ms", "network requests", "first image ms", "first pass p50 / p99",
                      "revisit passes p50 / p99", "revisit p50 speed-up vs baseline", "failures"]
        )
        func latencies(_ run: Run, revisit: Bool) -> Samples {
            Samples(run.samples.filter { ($0.pass > 0) == revisit }.map(\.milliseconds))
        }
        let baselineRevisit = latencies(baseline, revisit: true)
        for (name, run) in [("ImagePipeline (shipped)", pipeline), ("AsyncImage-style URLSession + URLCache", baseline)] {
            let first = latencies(run, revisit: false)
            let revisit = latencies(run, revisit: true)
            table.add([
                name, run.wall.summary(0),
                run.requests.map(String.init).joined(separator: ", "),
                run.firstImage.summary(1),
                "\(Format.milliseconds(first.percentile(0.5))) / \(Format.milliseconds(first.percentile(0.99)))",
                "\(Format.milliseconds(revisit.percentile(0.5))) / \(Format.milliseconds(revisit.percentile(0.99)))",
                Format.number(baselineRevisit.percentile(0.5) / revisit.percentile(0.5), 0) + "x",
                "\(run.failures)",
            ])
        }
        table.print(note: """
        Targets: exactly \(uniqueImages) network requests (one per unique image) per round; revisit p50 at \
        least 3x lower than the baseline's. Network requests are counted by the server, one figure per round.
        """)

        var bySource = Table("5b. End to end: latency per source", columns: ["loader", "source", "count", "p50", "p99", "max"])
        for (name, run) in [("ImagePipeline (shipped)", pipeline), ("AsyncImage-style URLSession + URLCache", baseline)] {
            let singleSource = Set(run.samples.map(\.source)).count == 1
            let groups = Dictionary(grouping: run.samples) { sample in
                singleSource
                    ? (sample.pass == 0 ? "first pass" : "revisit passes")
                    : sample.source
            }
            for (source, samples) in groups.sorted(by: { $0.key < $1.key }) {
                let values = Samples(samples.map(\.milliseconds))
                bySource.add([name, source, "\(samples.count)", Format.milliseconds(values.percentile(0.5)),
                              Format.milliseconds(values.percentile(0.99)), Format.milliseconds(values.max)])
            }
        }
        bySource.print(note: "The baseline cannot tell where URLSession found the bytes, so it is split by pass instead.")
    }
}
