import Foundation
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

/// A processor that runs on Linux: it transforms the bytes the header decoder keeps (so the
/// result is checkable) and counts its runs.
private final class TaggingProcessor: ImageProcessing {
    let tag: String
    private let runs = Locked(0)
    init(_ tag: String) {
        self.tag = tag
    }

    var identifier: String { "test.tag(\(tag))" }
    var runCount: Int { runs.withLock { $0 } }

    func process(_ image: DecodedImage) throws -> DecodedImage {
        runs.withLock { $0 += 1 }
        var image = image
        image.data = (image.data ?? Data()) + Data(tag.utf8)
        image.cost += tag.utf8.count
        return image
    }
}

private struct Broken: Error, CustomStringConvertible {
    var description: String { "no pixels" }
}

@Suite("Processing: processors in the pipeline")
struct ProcessingPipelineTests {
    @Test("the processed image is what the request returns and what the memory cache holds, under its processors' key")
    @available(macOS 14.0, *)
    func processedImageIsCached() async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/a.png")
        let pipeline = fixture.makePipeline()
        let round = TaggingProcessor("round")
        let request = ImageRequest(url: fixture.url("/a.png"), processors: [round])

        let response = try await pipeline.image(for: request)
        #expect(response.image.data == png + Data("round".utf8))
        #expect(pipeline.memoryCachedImage(for: request)?.data == png + Data("round".utf8))
        // The unprocessed image is not in memory: its key has no processors.
        #expect(pipeline.memoryCachedImage(for: ImageRequest(url: fixture.url("/a.png"))) == nil)

        // A second request is a memory hit: no decode, no processing.
        let again = try await pipeline.image(for: request)
        #expect(again.source == .memory)
        #expect(round.runCount == 1)
        await fixture.tearDown()
    }

    @Test("processors run in order; requests with different processors share the download, never a result")
    @available(macOS 14.0, *)
    func differentProcessorsNeverShare() async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/a.png", latency: .milliseconds(50))
        let decoder = CountingDecoder()
        let pipeline = fixture.makePipeline { $0.decoder = decoder }
        let url = fixture.url("/a.png")
        let (a, b) = (TaggingProcessor("a"), TaggingProcessor("b"))

        let ab = pipeline.imageTask(with: ImageRequest(url: url, processors: [a, b]))
        let ba = pipeline.imageTask(with: ImageRequest(url: url, processors: [b, a]))
        let plain = pipeline.imageTask(with: ImageRequest(url: url))
        #expect(try await ab.response.image.data == png + Data("ab".utf8))
        #expect(try await ba.response.image.data == png + Data("ba".utf8))
        #expect(try await plain.response.image.data == png)
        #expect(fixture.server.requestCount(for: "/a.png") == 1)
        #expect(decoder.decodeCount == 3)
        #expect(a.runCount == 2 && b.runCount == 2)

        #expect(pipeline.memoryCachedImage(for: ImageRequest(url: url, processors: [a, b]))?.data == png + Data("ab".utf8))
        #expect(pipeline.memoryCachedImage(for: ImageRequest(url: url, processors: [b, a]))?.data == png + Data("ba".utf8))
        await fixture.tearDown()
    }

    @Test("identical requests in flight share one decode and one processing pass")
    @available(macOS 14.0, *)
    func identicalRequestsCoalesce() async throws {
        let fixture = try await PipelineFixture.start()
        let gate = Gate()
        let png = ImageFixtures.png(width: 64, height: 48, seed: 3)
        fixture.server.serve("/a.png") { _ in
            await gate.wait()
            return .ok(png, contentType: "image/png")
        }
        let decoder = CountingDecoder()
        let pipeline = fixture.makePipeline { $0.decoder = decoder }
        let blur = TaggingProcessor("blur")
        let size = PixelSize(width: 32, height: 32)
        // Separate processor instances with the same identifier are the same processing.
        let tasks = (0..<4).map { _ in
            pipeline.imageTask(with: ImageRequest(url: fixture.url("/a.png"), targetPixelSize: size, processors: [blur]))
        }
        gate.open()
        for task in tasks {
            #expect(try await task.response.image.data == png + Data("blur".utf8))
        }
        #expect(decoder.decodeCount == 1)
        #expect(blur.runCount == 1)
        #expect(pipeline.statistics.coalescedRequests >= 3)
        await fixture.tearDown()
    }

    @Test("cancelling one of two identical requests does not cancel the other's processing")
    @available(macOS 14.0, *)
    func cancellationKeepsSharedProcessing() async throws {
        let fixture = try await PipelineFixture.start()
        let gate = Gate()
        let png = ImageFixtures.png(width: 16, height: 16, seed: 4)
        fixture.server.serve("/a.png") { _ in
            await gate.wait()
            return .ok(png, contentType: "image/png")
        }
        let pipeline = fixture.makePipeline()
        let tag = TaggingProcessor("t")
        let request = ImageRequest(url: fixture.url("/a.png"), processors: [tag])
        let cancelled = pipeline.imageTask(with: request)
        let kept = pipeline.imageTask(with: request)
        cancelled.cancel()
        gate.open()
        await #expect(throws: CancellationError.self) { try await cancelled.response }
        #expect(try await kept.response.image.data == png + Data("t".utf8))
        #expect(tag.runCount == 1)
        await fixture.tearDown()
    }

    @Test("processing runs off the main actor: it completes while the main actor is blocked")
    @available(macOS 14.0, *)
    @MainActor
    func processingOffMainActor() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/a.png")
        let pipeline = fixture.makePipeline()
        let processed = DispatchSemaphore(value: 0)
        let probe = ImageProcessors.Custom(id: "test.probe") { image in
            processed.signal()
            return image
        }
        let task = pipeline.imageTask(with: ImageRequest(url: fixture.url("/a.png"), processors: [probe]))
        // Hold the main actor until the processor has run: processing that needed it would time out.
        #expect(processed.wait(timeout: .now() + 10) == .success)
        _ = try await task.response
        await fixture.tearDown()
    }

    @Test("a failing processor fails the request with a typed error naming it, caches nothing processed, keeps the original bytes")
    @available(macOS 14.0, *)
    func failingProcessorIsNamed() async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/a.png", headers: ["Cache-Control": "max-age=3600"])
        let pipeline = fixture.makePipeline()
        let url = fixture.url("/a.png")
        let broken = ImageProcessors.Custom(id: "test.broken") { _ in throw Broken() }
        let request = ImageRequest(url: url, processors: [TaggingProcessor("ok"), broken])

        do {
            _ = try await pipeline.image(for: request)
            Issue.record("expected a processing failure")
        } catch let error as ImagePipeline.Error {
            guard case .processingFailed(let failedURL, let processor, let reason) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(failedURL == url)
            #expect(processor == "test.broken")
            #expect(reason == "no pixels")
            #expect(error.description.contains("test.broken"))
        }
        #expect(pipeline.memoryCachedImage(for: request) == nil)
        // The download was good: the original bytes are on disk, and a request without the
        // broken processor is served from there.
        let plain = try await pipeline.image(for: ImageRequest(url: url))
        #expect(plain.source == .disk)
        #expect(plain.image.data == png)
        #expect(fixture.server.requestCount(for: "/a.png") == 1)
        await fixture.tearDown()
    }

    @Test("a composition names the processor inside it that failed")
    @available(macOS 14.0, *)
    func compositionNamesInnerProcessor() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/a.png")
        let pipeline = fixture.makePipeline()
        let chain = ImageProcessors.Composition([
            TaggingProcessor("a"),
            ImageProcessors.Composition([ImageProcessors.Custom(id: "inner.broken") { _ in throw Broken() }]),
        ])
        #expect(chain.identifier == "test.tag(a) > inner.broken")
        do {
            _ = try await pipeline.image(for: ImageRequest(url: fixture.url("/a.png"), processors: [chain]))
            Issue.record("expected a processing failure")
        } catch ImagePipeline.Error.processingFailed(_, let processor, _) {
            #expect(processor == "inner.broken")
        }
        await fixture.tearDown()
    }
}

@Suite("Processing: keys and geometry")
struct ProcessingKeyTests {
    @Test("requests and cache keys compare processors by identifier, in order")
    func keysUseIdentifiers() {
        let url = URL(string: "https://example.com/a.png")
        let a = ImageProcessors.Custom(id: "a") { $0 }
        let b = ImageProcessors.Custom(id: "b") { $0 }
        let sameAsA = ImageProcessors.Custom(id: "a") { $0 }
        #expect(ImageRequest(url: url, processors: [a]) == ImageRequest(url: url, processors: [sameAsA]))
        #expect(ImageRequest(url: url, processors: [a, b]) != ImageRequest(url: url, processors: [b, a]))
        #expect(ImageRequest(url: url, processors: [a]) != ImageRequest(url: url))
        #expect(ImageCacheKey(ImageRequest(url: url, processors: [a, b])).processorIdentifiers == ["a", "b"])
        #expect(ImageCacheKey(ImageRequest(url: url, processors: [a])) != ImageCacheKey(ImageRequest(url: url)))
        #expect(ImageTaskKey(ImageRequest(url: url, processors: [a])) != ImageTaskKey(ImageRequest(url: url, processors: [b])))
        #expect(DataTaskKey(ImageRequest(url: url, processors: [a])) == DataTaskKey(ImageRequest(url: url, processors: [b])))
    }

    @Test("aspect fit keeps the whole image inside the target and never upscales unless asked")
    func fitGeometry() {
        let source = PixelSize(width: 4000, height: 3000)
        let fit = ImageResizeGeometry(source: source, target: PixelSize(width: 200, height: 200), contentMode: .aspectFit, upscale: false, crop: false)
        #expect(fit.canvas == PixelSize(width: 200, height: 150))
        let small = PixelSize(width: 100, height: 50)
        let kept = ImageResizeGeometry(source: small, target: PixelSize(width: 400, height: 400), contentMode: .aspectFit, upscale: false, crop: false)
        #expect(kept.canvas == small)
        let enlarged = ImageResizeGeometry(source: small, target: PixelSize(width: 400, height: 400), contentMode: .aspectFit, upscale: true, crop: false)
        #expect(enlarged.canvas == PixelSize(width: 400, height: 200))
    }

    @Test("aspect fill covers the target; with crop the canvas is the target and the source is centred")
    func fillGeometry() {
        let source = PixelSize(width: 4000, height: 3000)
        let target = PixelSize(width: 192, height: 192)
        let uncropped = ImageResizeGeometry(source: source, target: target, contentMode: .aspectFill, upscale: false, crop: false)
        #expect(uncropped.canvas == PixelSize(width: 256, height: 192))
        let cropped = ImageResizeGeometry(source: source, target: target, contentMode: .aspectFill, upscale: false, crop: true)
        #expect(cropped.canvas == target)
        #expect(cropped.drawX == -32 && cropped.drawY == 0)
        #expect(cropped.drawWidth == 256 && cropped.drawHeight == 192)
    }
}
