import Foundation
import LoopbackServer
import Testing
@testable import CachedImageCore

/// Downloads that stop before their end (the connection cut, the last request cancelled) keep
/// their bytes, and the next load asks the real loopback server only for the rest: the result
/// is byte-identical to a full download, and nothing partial is ever served.
@Suite("Resumable downloads: 206 appends")
struct ResumableDownloadTests {
    typealias Fixture = ResumptionFixture

    @Test("a cut download resumes with Range and If-Range; the server sends only the rest", .timeLimit(.minutes(1)))
    func resumesAfterCut() async throws {
        let fixture = try await PipelineFixture.start()
        let png = Fixture.image()
        let cut = png.count / 3
        fixture.server.serveSequence(Fixture.path, [Fixture.response(png, cutAfter: cut), Fixture.response(png)])
        let pipeline = fixture.makePipeline()
        let url = fixture.url(Fixture.path)

        let kept = await Fixture.loadCut(pipeline, url)
        #expect(kept > 0 && kept <= cut)
        fixture.server.resetCounters()
        let resumed = try await pipeline.data(for: ImageRequest(url: url))

        #expect(resumed.data == png)
        #expect(resumed.bytesDownloaded == png.count - kept)
        let requests = fixture.server.requests(for: Fixture.path)
        #expect(requests.count == 1)
        #expect(requests.first?.header("Range") == "bytes=\(kept)-")
        #expect(requests.first?.header("If-Range") == "\"v1\"")
        #expect(fixture.server.bytesSent == png.count - kept)
        #expect(pipeline.resumableByteCount(for: ImageRequest(url: url)) == 0)
        ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: png)
        // The assembled image decodes like the whole one.
        let image = try await pipeline.image(for: url)
        #expect(image.image.pixelSize == PixelSize(width: 160, height: 120))
        await fixture.tearDown()
    }

    @Test("a download cut again while resuming keeps the longer prefix and resumes from there", .timeLimit(.minutes(1)))
    func cutAgain() async throws {
        let fixture = try await PipelineFixture.start()
        let png = Fixture.image(seed: 2)
        let first = png.count / 3
        fixture.server.serveSequence(Fixture.path, [
            Fixture.response(png, cutAfter: first),
            Fixture.response(png, cutAfter: first),
            Fixture.response(png),
        ])
        let pipeline = fixture.makePipeline()
        let url = fixture.url(Fixture.path)

        let kept = await Fixture.loadCut(pipeline, url)
        let keptAgain = await Fixture.loadCut(pipeline, url)
        #expect(keptAgain > kept)
        let data = try await pipeline.data(for: ImageRequest(url: url))

        #expect(data.data == png)
        let ranges = Fixture.ranges(fixture)
        #expect(ranges == [nil, "bytes=\(kept)-", "bytes=\(keptAgain)-"])
        ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: png)
        await fixture.tearDown()
    }

    @Test("a download cancelled by its last request keeps its bytes and resumes", .timeLimit(.minutes(1)))
    func resumesAfterCancellation() async throws {
        let fixture = try await PipelineFixture.start()
        let png = Fixture.image(seed: 3)
        // A quarter arrives, then the server stalls: the request is cancelled meanwhile.
        var stalling = Fixture.response(png)
        stalling.chunkSize = png.count / 4
        stalling.chunkDelay = .seconds(600)
        fixture.server.serve(Fixture.path, stalling)
        let pipeline = fixture.makePipeline()
        let url = fixture.url(Fixture.path)
        let arrived = Gate()
        let task = pipeline.imageTask(with: ImageRequest(url: url), progress: { received, _ in
            if received > 0 { arrived.open() }
        })
        await arrived.wait()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.response }
        let request = ImageRequest(url: url)
        #expect(await eventually { pipeline.resumableByteCount(for: request) > 0 })
        let kept = pipeline.resumableByteCount(for: request)
        Fixture.expectNothingServed(pipeline, url)

        fixture.server.serve(Fixture.path, Fixture.response(png))
        fixture.server.resetCounters()
        let data = try await pipeline.data(for: request)
        #expect(data.data == png)
        #expect(Fixture.ranges(fixture) == ["bytes=\(kept)-"])
        #expect(fixture.server.bytesSent == png.count - kept)
        await fixture.tearDown()
    }

    @Test("progress of a resumed download starts at the kept bytes and never goes back", .timeLimit(.minutes(1)))
    func progressContinues() async throws {
        let fixture = try await PipelineFixture.start()
        let png = Fixture.image(seed: 4)
        var rest = Fixture.response(png)
        rest.chunkSize = png.count / 8
        rest.chunkDelay = .zero
        fixture.server.serveSequence(Fixture.path, [Fixture.response(png, cutAfter: png.count / 2), rest])
        let pipeline = fixture.makePipeline()
        let url = fixture.url(Fixture.path)
        let kept = await Fixture.loadCut(pipeline, url)

        let reports = Recorder<(Int64, Int64?)>()
        let task = pipeline.imageTask(with: ImageRequest(url: url), progress: { reports.append(($0, $1)) })
        _ = try await task.response

        let values = reports.values
        #expect(values.first?.0 == Int64(kept))
        #expect(values.allSatisfy { $0.1 == Int64(png.count) })
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.0 <= $1.0 })
        #expect(values.last?.0 == Int64(png.count))
        await fixture.tearDown()
    }

    @Test("a retry after a cut resumes within the same load", .timeLimit(.minutes(1)))
    func retryResumes() async throws {
        let fixture = try await PipelineFixture.start()
        let png = Fixture.image(seed: 8)
        fixture.server.serveSequence(Fixture.path, [Fixture.response(png, cutAfter: png.count / 2), Fixture.response(png)])
        let pipeline = fixture.makePipeline { $0.retryPolicy = .init(maximumRetries: 1, sleep: { _ in }) }
        let url = fixture.url(Fixture.path)

        let data = try await pipeline.data(for: ImageRequest(url: url))
        #expect(data.data == png)
        let ranges = Fixture.ranges(fixture)
        #expect(ranges.count == 2)
        #expect(ranges.first == .some(nil))
        let range = try #require(ranges.last ?? nil)
        let kept = try #require(Int(range.dropFirst("bytes=".count).dropLast()))
        #expect(kept > 0)
        // The cut response's half, then only the rest.
        #expect(fixture.server.bytesSent == png.count / 2 + png.count - kept)
        await fixture.tearDown()
    }

    @Test("a Last-Modified older than Date is a validator: If-Range carries the date", .timeLimit(.minutes(1)))
    func lastModifiedValidator() async throws {
        let fixture = try await PipelineFixture.start()
        let png = Fixture.image(seed: 5)
        let headers = [
            "Accept-Ranges": "bytes",
            "Last-Modified": "Wed, 25 Nov 2026 10:00:00 GMT",
            "Date": "Thu, 26 Nov 2026 10:00:00 GMT",
        ]
        fixture.server.serveSequence(Fixture.path, [
            Fixture.response(png, headers: headers, cutAfter: png.count / 2), Fixture.response(png, headers: headers),
        ])
        let pipeline = fixture.makePipeline()
        let url = fixture.url(Fixture.path)
        let kept = await Fixture.loadCut(pipeline, url)

        let data = try await pipeline.data(for: ImageRequest(url: url))
        #expect(data.data == png)
        let resumed = fixture.server.requests(for: Fixture.path).last
        #expect(resumed?.header("Range") == "bytes=\(kept)-")
        #expect(resumed?.header("If-Range") == "Wed, 25 Nov 2026 10:00:00 GMT")
        await fixture.tearDown()
    }

    @Test("memory pressure, removeCachedImage and removeAllCachedImages let go of the kept bytes", .timeLimit(.minutes(1)))
    func lettingGo() async throws {
        let fixture = try await PipelineFixture.start()
        let png = Fixture.image(seed: 6)
        fixture.server.serve(Fixture.path, Fixture.response(png, cutAfter: png.count / 2))
        let pipeline = fixture.makePipeline()
        let request = ImageRequest(url: fixture.url(Fixture.path))

        #expect(await Fixture.loadCut(pipeline, request.url!) > 0)
        pipeline.trimResumableDownloads(for: .normal)
        #expect(pipeline.resumableByteCount(for: request) > 0)
        pipeline.trimResumableDownloads(for: .warning)
        #expect(pipeline.resumableByteCount(for: request) == 0)

        #expect(await Fixture.loadCut(pipeline, request.url!) > 0)
        pipeline.removeCachedImage(for: request)
        #expect(pipeline.resumableByteCount(for: request) == 0)

        #expect(await Fixture.loadCut(pipeline, request.url!) > 0)
        pipeline.removeAllCachedImages()
        #expect(pipeline.resumableByteCount(for: request) == 0)
        await fixture.tearDown()
    }

    @Test("a budget of zero keeps nothing: the next load starts from zero", .timeLimit(.minutes(1)))
    func zeroBudget() async throws {
        let fixture = try await PipelineFixture.start()
        let png = Fixture.image(seed: 7)
        fixture.server.serveSequence(Fixture.path, [Fixture.response(png, cutAfter: png.count / 2), Fixture.response(png)])
        let pipeline = fixture.makePipeline { $0.resumableDownloadBudget = 0 }
        let url = fixture.url(Fixture.path)

        #expect(await Fixture.loadCut(pipeline, url) == 0)
        #expect(try await pipeline.data(for: ImageRequest(url: url)).data == png)
        #expect(Fixture.ranges(fixture) == [nil, nil])
        await fixture.tearDown()
    }

    @Test("a resumed progressive JPEG's previews start from the kept bytes", .timeLimit(.minutes(1)))
    func previewsIncludeKeptBytes() async throws {
        let fixture = try await PipelineFixture.start()
        let jpeg = try ProgressiveFixtures.progressive()
        let headers = ["ETag": "\"p1\"", "Accept-Ranges": "bytes", "Content-Type": "image/jpeg"]
        var rest = Fixture.response(jpeg, headers: headers)
        rest.chunkSize = 1_000
        rest.chunkDelay = .milliseconds(3)
        // Cut after the second scan: the kept bytes alone make a preview.
        fixture.server.serveSequence("/photo.jpg", [Fixture.response(jpeg, headers: headers, cutAfter: 4_000), rest])
        let pipeline = fixture.makePipeline { $0.progressivePreviewPolicy = ProgressivePreviewPolicy(maximumPreviewCount: 10, minimumInterval: 0) }
        let request = ImageRequest(url: fixture.url("/photo.jpg"), options: [.showProgressivePreviews])
        let kept = await Fixture.loadCut(pipeline, request.url!)

        let previews = Recorder<ImageResponse>()
        let final = try await pipeline.imageTask(with: request, preview: { previews.append($0) }).response
        #expect(final.image.data == jpeg)
        #expect(Fixture.ranges(fixture, "/photo.jpg").last == "bytes=\(kept)-")
        #expect(!previews.values.isEmpty)
        for preview in previews.values {
            // Each preview is the image's own first bytes up to a complete scan, closed with EOI.
            let bytes = try #require(preview.image.data)
            #expect(ProgressiveFixtures.progressiveScanEnds.contains(bytes.count - 2))
            #expect(bytes.dropLast(2) == jpeg.prefix(bytes.count - 2))
        }
        await fixture.tearDown()
    }
}
