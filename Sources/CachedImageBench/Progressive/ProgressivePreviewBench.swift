import CachedImageCore
import Foundation
import LoopbackServer

/// Table 13: time to the first progressive preview against time to the full image (issue 38),
/// for the checked-in progressive JPEG (Tests/Fixtures/Progressive) sent by the loopback server
/// over a throttled link, with and without `.showProgressivePreviews`.
struct ProgressivePreviewBench {
    let options: BenchOptions
    let root: URL

    /// The progressive fixture, read from the source tree (the benchmark runs from the package).
    static let fixture = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures/Progressive/progressive.jpg")

    /// A link of about `kilobytesPerSecond`: 1,460-byte pieces (one TCP segment) at that pace.
    struct Link {
        let name: String
        let kilobytesPerSecond: Int
        var chunkDelay: Duration { .microseconds(1_460 * 1_000_000 / (kilobytesPerSecond * 1_000)) }
    }

    func run() async throws {
        guard let jpeg = try? Data(contentsOf: Self.fixture) else {
            print("\n(table 13 skipped: run from the package directory, \(Self.fixture.path) not found)")
            return
        }
        let rounds = options.pick(quick: 3, full: 9)
        let links = [Link(name: "3G (~94 KB/s, 750 kbit/s)", kilobytesPerSecond: 94), Link(name: "slow 3G (~50 KB/s, 400 kbit/s)", kilobytesPerSecond: 50)]
        let server = try await LoopbackServer.start(link: options.link)
        var table = Table(
            "13. Progressive JPEG (\(jpeg.count / 1_000) KB, 10 scans): time to first preview vs full image (median of \(rounds), ms)",
            columns: ["link", "first preview", "bytes at first preview", "previews", "full image (previews on)", "full image (previews off)"]
        )
        for link in links {
            server.serve("/photo.jpg", LoopbackResponse(
                headers: ["Content-Type": "image/jpeg", "Cache-Control": "no-store"],
                body: jpeg, chunkSize: 1_460, chunkDelay: link.chunkDelay
            ))
            var first = Samples(), full = Samples(), plain = Samples(), bytes = Samples(), counts = Samples()
            for round in 0..<rounds {
                let pipeline = makePipeline(round: round)
                let request = ImageRequest(url: server.url("/photo.jpg"), options: [.showProgressivePreviews])
                let start = Stopwatch.nanos()
                let firstPreview = Locked<(nanos: UInt64, bytes: Int)?>(nil)
                let previewCount = Locked(0)
                let task = pipeline.imageTask(with: request, preview: { preview in
                    let now = Stopwatch.nanos()
                    previewCount.withLock { $0 += 1 }
                    firstPreview.withLock { $0 = $0 ?? (now - start, preview.image.data?.count ?? 0) }
                })
                _ = try await task.response
                full.add(Double(Stopwatch.nanos() - start) / 1e6)
                if let (nanos, size) = firstPreview.withLock({ $0 }) {
                    first.add(Double(nanos) / 1e6)
                    bytes.add(Double(size))
                }
                counts.add(Double(previewCount.withLock { $0 }))

                let plainStart = Stopwatch.nanos()
                _ = try await makePipeline(round: round + 1_000).image(for: ImageRequest(url: server.url("/photo.jpg")))
                plain.add(Double(Stopwatch.nanos() - plainStart) / 1e6)
            }
            table.add([
                link.name, first.summary(0), Format.number(bytes.median, 0) + " (\(Int(100 * bytes.median / Double(jpeg.count)))%)",
                Format.number(counts.median, 0), full.summary(0), plain.summary(0),
            ])
        }
        await server.shutdown()
        table.print(note: "Loopback server sending 1,460-byte pieces at the link's pace; default `ProgressivePreviewPolicy` (3 previews at most, 0.2 s apart); no disk or memory cache between rounds (`no-store`, a fresh pipeline each round). On Linux the decoder reads headers only, so these times are the transfer and the pipeline's own work; on Apple platforms add an ImageIO decode per preview. Wall clock on a shared machine.")
    }

    private func makePipeline(round: Int) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCacheDirectory = root.appendingPathComponent("progressive-\(round)")
        configuration.decoder = HeaderImageDecoder()
        return ImagePipeline(configuration: configuration)
    }
}
