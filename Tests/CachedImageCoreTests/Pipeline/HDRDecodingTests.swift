import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// Records whether each decode it gets is for the high dynamic range.
private final class RangeRecordingDecoder: TargetedImageDecoding {
    private let targets = Locked<[DecodingTarget]>([])
    var recorded: [DecodingTarget] { targets.withLock { $0 } }

    func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
        try decode(data, info: info, target: DecodingTarget(size: targetSize, contentMode: .aspectFit))
    }

    func decode(_ data: Data, info: ImageInfo, target: DecodingTarget) throws -> DecodedImage {
        targets.withLock { $0.append(target) }
        let size = target.size ?? PixelSize(width: 1, height: 1)
        return DecodedImage(image: nil, data: data, format: info.format, pixelSize: size, cost: DecodedImage.bitmapCost(of: size))
    }
}

/// `.decodeToHDR`: what ImageIO is asked, what it costs, and that the HDR and SDR decodes of the
/// same bytes share the download and the disk entry, never the memory entry.
@Suite("A request for the high dynamic range", .timeLimit(.minutes(1)))
struct HDRDecodingTests {
    @Test("an HDR target asks ImageIO for the system's HDR decode request at 8 bytes a pixel; an SDR target, or a system without one, asks nothing new")
    func decodeOptions() throws {
        let url = try #require(URL(string: "https://example.com/photo.heic"))
        let sdr = ImageRequest(url: url, targetPixelSize: PixelSize(width: 100, height: 100)).decodingTarget(maximumSize: nil)
        let hdr = ImageRequest(url: url, targetPixelSize: PixelSize(width: 100, height: 100), options: [.decodeToHDR]).decodingTarget(maximumSize: nil)
        #expect(!sdr.decodesToHDR && hdr.decodesToHDR)
        let system = HDRDecodeRequest(key: "decode request", value: "to HDR")
        #expect(sdr.imageIODecodeRequest(system).isEmpty)
        #expect(hdr.imageIODecodeRequest(system) == ["decode request": "to HDR"])
        #expect(hdr.imageIODecodeRequest(nil).isEmpty, "a system without the symbols: the SDR decode")
        #expect(HDRDecodeRequest.system == nil, "no ImageIO here")
        let photo = PixelSize(width: 400, height: 300)
        #expect(sdr.decodedBytes(of: photo) == 133 * 100 * 4)
        #expect(hdr.decodedBytes(of: photo) == 133 * 100 * 8)
        #expect(ImageCacheKey(ImageRequest(url: url, options: [.decodeToHDR])) != ImageCacheKey(ImageRequest(url: url)))
    }

    @Test("the HDR and SDR decodes of one photo: one download, two memory entries, the HDR one at twice the cost")
    func keptApart() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/photo.png", width: 400, height: 300)
            let pipeline = fixture.makePipeline()
            // At its own size: the bitmap outweighs the PNG's bytes, which the Linux decoder keeps.
            let sdr = ImageRequest(url: fixture.url("/photo.png"))
            var hdr = sdr
            hdr.options.insert(.decodeToHDR)
            let sdrImage = try await pipeline.image(for: sdr).image
            let hdrImage = try await pipeline.image(for: hdr).image
            #expect(sdrImage.cost == 400 * 300 * 4)
            #expect(hdrImage.cost == 400 * 300 * 8)
            #expect(pipeline.memoryCachedImage(for: sdr)?.cost == 400 * 300 * 4)
            #expect(pipeline.memoryCachedImage(for: hdr)?.cost == 400 * 300 * 8)
            #expect(fixture.server.requestCount(for: "/photo.png") == 1)
        }
    }

    @Test("where the system cannot decode HDR, an HDR request is an SDR one: the same memory entry, 4 bytes a pixel, an SDR decode")
    func sdrWhereUnavailable() async throws {
        try await HDRDecodeRequest.isAvailable.withValue(false) {
            try await withScriptedFixture { fixture throws in
                fixture.servePNG("/photo.png", width: 400, height: 300)
                let decoder = RangeRecordingDecoder()
                let pipeline = fixture.makePipeline { $0.decoder = decoder }
                let sdr = ImageRequest(url: fixture.url("/photo.png"), targetPixelSize: PixelSize(width: 40, height: 30))
                var hdr = sdr
                hdr.options.insert(.decodeToHDR)
                #expect(ImageCacheKey(hdr) == ImageCacheKey(sdr))
                let image = try await pipeline.image(for: hdr).image
                #expect(image.cost == 40 * 30 * 4)
                #expect(decoder.recorded.map(\.decodesToHDR) == [false])
                #expect(pipeline.memoryCachedImage(for: sdr)?.cost == 40 * 30 * 4, "the SDR request finds the same entry")
            }
        }
    }

    @Test("an HDR load joins the SDR load's download in flight: one download")
    func joinsTheDownload() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            // Not kept on disk: a second download could not be answered from there.
            let png = ImageFixtures.png(width: 64, height: 48, seed: 1)
            fixture.server.serve("/photo.png") { _ in
                await gate.wait()
                return .ok(png, contentType: "image/png", headers: ["Cache-Control": "no-store"])
            }
            let pipeline = fixture.makePipeline()
            let url = fixture.url("/photo.png")
            async let sdr = pipeline.image(for: ImageRequest(url: url))
            async let hdr = pipeline.image(for: ImageRequest(url: url, options: [.decodeToHDR]))
            #expect(await eventually { fixture.server.requestCount(for: "/photo.png") == 1 })
            // The second load has joined the download in flight before the body is sent.
            #expect(await eventually { pipeline.statistics.coalescedRequests == 1 })
            gate.open()
            let costs = try await (sdr.image.cost, hdr.image.cost)
            #expect(costs.1 == 2 * costs.0)
            #expect(fixture.server.requestCount(for: "/photo.png") == 1)
        }
    }

    @Test("bytes without a header size, bounded by the pixel limit, are still decoded for HDR")
    func limitedTargetKeepsTheRange() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/scene.toy", .ok(Data("TOY1 40000 40000".utf8)))
            let decoder = RangeRecordingDecoder()
            let pipeline = fixture.makePipeline {
                $0.decoderRegistry.register(decoder, name: "toy", matching: ToyDecoder.matches)
                $0.maximumPixelCount = 1_000_000
            }
            _ = try await pipeline.image(for: ImageRequest(url: fixture.url("/scene.toy"), options: [.decodeToHDR]))
            #expect(decoder.recorded.map(\.size) == [PixelSize(width: 1000, height: 1000)], "bounded by the limit")
            #expect(decoder.recorded.map(\.decodesToHDR) == [true])
        }
    }

    @Test("a relaunch's first frame reads an HDR decode synchronously only when its 8 bytes a pixel fit the budget")
    @MainActor
    func firstFrameBudget() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/thumb.png", width: 16, height: 16, headers: ["Cache-Control": "max-age=3600"])
            let sdr = ImageRequest(url: fixture.url("/thumb.png"))
            let hdr = ImageRequest(url: fixture.url("/thumb.png"), options: [.decodeToHDR])
            let first = fixture.makePipeline()
            _ = try await first.image(for: sdr)
            first.diskCache?.flush()
            var budget = ImagePipeline.SynchronousDiskRead.default
            budget.maximumDecodedBytes = 16 * 16 * 4
            #expect(fixture.makePipeline { $0.synchronousDiskRead = budget }.firstFrameImage(for: hdr) == nil)
            #expect(fixture.makePipeline { $0.synchronousDiskRead = budget }.firstFrameImage(for: sdr)?.source == .disk)
            budget.maximumDecodedBytes = 16 * 16 * 8
            let relaunched = fixture.makePipeline { $0.synchronousDiskRead = budget }
            #expect(relaunched.firstFrameImage(for: hdr)?.image.cost == 16 * 16 * 8)
        }
    }
}
