import CachedImageCore
import Foundation
import ImageFixtures
import LoopbackServer
import ToolSupport

/// Table 16: the delivery latency of a processed image with `diskCachePolicy` `.automatic`
/// (issue 35): the time from `image(for:)` to the processed image, with the encode for the disk
/// after delivery (the pipeline today) against the old order, where the delivery waited for
/// that encode (emulated side by side in the same process: the same load with `.original`, then
/// the same encode before the caller gets the image). The original is in the disk cache (a
/// warm-up load from the loopback server, fresh for an hour), so each round is a disk read, a
/// decode, the processor and (before) the encode.
struct ProcessedDeliveryBench {
    let options: BenchOptions
    let root: URL

    /// Encodes a PNG of the image's pixel size, as an encoder of its bitmap would: Linux decodes
    /// headers only, so the pixels are generated (seeded) and deflated.
    struct PNGSizeEncoder: ImageEncoding {
        let count = Protected(0)

        func encode(_ image: DecodedImage) throws -> Data {
            count.withLock { $0 += 1 }
            return ImageFixtures.png(width: image.pixelSize.width, height: image.pixelSize.height, seed: 11)
        }
    }

    func run() async throws {
        let rounds = options.pick(quick: 10, full: 40)
        let directory = root.appendingPathComponent("processed-delivery")
        let source = PixelSize(width: 1600, height: 1200)
        let server = try await LoopbackServer.start()
        server.serve("/photo.png", LoopbackResponse(
            headers: ["Content-Type": "image/png", "Cache-Control": "max-age=3600"],
            body: ImageFixtures.png(width: source.width, height: source.height, seed: 3)
        ))
        let url = server.url("/photo.png")
        let encoder = PNGSizeEncoder()
        _ = try await makePipeline(directory, policy: .original, encoder: encoder).image(for: ImageRequest(url: url))
        makePipeline(directory, policy: .original, encoder: encoder).diskCache?.flush()
        var table = Table(
            "16. Delivery latency of a processed image, diskCachePolicy .automatic (median (min-max) of \(rounds), ms)",
            columns: ["processed size", "after: encode after delivery", "before: encode on the delivery path", "the encode alone"]
        )
        for side in [300, 800] {
            var after = Samples(), before = Samples(), encodes = Samples()
            for round in 0..<rounds {
                // A processor new to the disk each round: nothing derived is found; the original is.
                let processor = ImageProcessors.Custom(id: "bench.identity.\(side).\(round)") { $0 }
                let request = ImageRequest(
                    url: url, targetPixelSize: PixelSize(width: side, height: side), contentMode: .aspectFit, processors: [processor]
                )
                let automatic = makePipeline(directory, policy: .automatic, encoder: encoder)
                var start = Stopwatch.nanos()
                _ = try await automatic.image(for: request)
                after.add(Double(Stopwatch.nanos() - start) / 1e6)
                automatic.diskCache?.flush() // the encode lands (untimed)

                let original = makePipeline(directory, policy: .original, encoder: encoder)
                start = Stopwatch.nanos()
                let response = try await original.image(for: request)
                let encodeStart = Stopwatch.nanos()
                _ = try encoder.encode(response.image) // the old order: encoded, then delivered
                let end = Stopwatch.nanos()
                before.add(Double(end - start) / 1e6)
                encodes.add(Double(end - encodeStart) / 1e6)
            }
            let size = makeSizeLabel(source: source, side: side)
            table.add([size, after.summary(2), before.summary(2), encodes.summary(2)])
        }
        let requests = server.totalRequestCount
        await server.shutdown()
        table.print(note: "Encodes run: \(encoder.count.withLock { $0 }) (one per load, both orders); server requests: \(requests) (the warm-up only). A 1600x1200 PNG in the disk cache, fitted to the size and passed through an identity processor new each round (so no processed copy is found), a fresh pipeline (empty memory cache) per load. Encoder: a PNG of the processed size (Linux decodes headers only, so its pixels are generated and deflated: the encode's cost, not ImageIO's). Before: the same load with `.original`, then that encode before the image is handed over, the order the pipeline used before the encode moved after delivery. Wall clock on a shared machine.")
    }

    private func makeSizeLabel(source: PixelSize, side: Int) -> String {
        let fitted = source.fitted(into: PixelSize(width: side, height: side))
        return "\(fitted.width)x\(fitted.height)"
    }

    private func makePipeline(_ directory: URL, policy: ImagePipeline.DiskCachePolicy, encoder: PNGSizeEncoder) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCacheDirectory = directory.appendingPathComponent("cache")
        configuration.decoder = HeaderImageDecoder()
        configuration.diskCachePolicy = policy
        configuration.encoder = encoder
        return ImagePipeline(configuration: configuration)
    }
}
