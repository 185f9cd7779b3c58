import Foundation
import LoopbackServer
import Testing
@testable import CachedImageCore

/// What the pipeline does when the kept bytes cannot be continued: a server that ignores
/// `Range`, an image that changed, a `416`, an unreadable `Content-Range`; and the responses it
/// never tries to resume (no `Accept-Ranges`, a weak `ETag`). Each ends with the whole image,
/// byte-identical to a full download, and never with the kept bytes in it.
@Suite("Resumable downloads: 200, changed validator, 416, malformed range, not resumable")
struct ResumptionFallbackTests {
    typealias Fixture = ResumptionFixture

    @Test("a server that ignores Range answers 200: the kept bytes are dropped, the body used whole", .timeLimit(.minutes(1)))
    func serverIgnoresRange() async throws {
        let fixture = try await PipelineFixture.start()
        let png = Fixture.image(seed: 11)
        fixture.server.serveSequence(Fixture.path, [
            Fixture.response(png, cutAfter: png.count / 2), Fixture.response(png, honorsRanges: false),
        ])
        let pipeline = fixture.makePipeline()
        let url = fixture.url(Fixture.path)
        let kept = await Fixture.loadCut(pipeline, url)

        fixture.server.resetCounters()
        let data = try await pipeline.data(for: ImageRequest(url: url))
        #expect(data.data == png)
        #expect(data.bytesDownloaded == png.count)
        #expect(Fixture.ranges(fixture) == ["bytes=\(kept)-"])
        #expect(fixture.server.bytesSent == png.count)
        #expect(pipeline.resumableByteCount(for: ImageRequest(url: url)) == 0)
        ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: png)
        await fixture.tearDown()
    }

    @Test("an image that changed (If-Range no longer matches) comes whole, without the old bytes", .timeLimit(.minutes(1)))
    func changedValidator() async throws {
        let fixture = try await PipelineFixture.start()
        let old = Fixture.image(seed: 12)
        let new = Fixture.image(seed: 13)
        fixture.server.serveSequence(Fixture.path, [
            Fixture.response(old, cutAfter: old.count / 2),
            Fixture.response(new, headers: ["ETag": "\"v2\"", "Accept-Ranges": "bytes"]),
        ])
        let pipeline = fixture.makePipeline()
        let url = fixture.url(Fixture.path)
        await Fixture.loadCut(pipeline, url)

        let data = try await pipeline.data(for: ImageRequest(url: url))
        #expect(data.data == new)
        let resumed = fixture.server.requests(for: Fixture.path).last
        #expect(resumed?.header("If-Range") == "\"v1\"")
        #expect(pipeline.resumableByteCount(for: ImageRequest(url: url)) == 0)
        ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: new)
        await fixture.tearDown()
    }

    @Test("a 206 naming another validator is refused: the image is asked for again, whole", .timeLimit(.minutes(1)))
    func partialOfAnotherVersion() async throws {
        let fixture = try await PipelineFixture.start()
        let old = Fixture.image(seed: 14)
        let new = Fixture.image(seed: 15)
        let cut = old.count / 2
        let served = Locked(0)
        // A server that ignores If-Range: it sends the rest of the new version.
        fixture.server.serve(Fixture.path) { request in
            let count = served.withLock { $0 += 1; return $0 }
            if count == 1 { return Fixture.response(old, cutAfter: cut) }
            guard let range = request.header("Range") else {
                return Fixture.response(new, headers: ["ETag": "\"v2\"", "Accept-Ranges": "bytes"])
            }
            let start = Int(range.dropFirst("bytes=".count).dropLast()) ?? 0
            return LoopbackResponse(status: 206, headers: [
                "ETag": "\"v2\"", "Content-Type": "image/png", "Content-Range": "bytes \(start)-\(new.count - 1)/\(new.count)",
            ], body: new.subdata(in: start ..< new.count))
        }
        let pipeline = fixture.makePipeline()
        let url = fixture.url(Fixture.path)
        let kept = await Fixture.loadCut(pipeline, url)

        let data = try await pipeline.data(for: ImageRequest(url: url))
        #expect(data.data == new)
        #expect(Fixture.ranges(fixture) == [nil, "bytes=\(kept)-", nil])
        ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: new)
        await fixture.tearDown()
    }

    @Test("a 416 or an unreadable Content-Range starts over from zero", .timeLimit(.minutes(1)), arguments: [
        LoopbackResponse(status: 416, headers: ["Content-Range": "bytes */1"]),
        LoopbackResponse(status: 206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes x-y/z", "Content-Type": "image/png"], body: Data(count: 64)),
        LoopbackResponse(status: 206, headers: ["ETag": "\"v1\"", "Content-Type": "image/png"], body: Data(count: 64)),
    ])
    func startsOver(_ refusal: LoopbackResponse) async throws {
        let fixture = try await PipelineFixture.start()
        let png = Fixture.image(seed: 16)
        let served = Locked(0)
        fixture.server.serve(Fixture.path) { request in
            let count = served.withLock { $0 += 1; return $0 }
            if count == 1 { return Fixture.response(png, cutAfter: png.count / 2) }
            return request.header("Range") == nil ? Fixture.response(png) : refusal
        }
        let pipeline = fixture.makePipeline()
        let url = fixture.url(Fixture.path)
        let kept = await Fixture.loadCut(pipeline, url)

        let data = try await pipeline.data(for: ImageRequest(url: url))
        #expect(data.data == png)
        #expect(Fixture.ranges(fixture) == [nil, "bytes=\(kept)-", nil])
        #expect(pipeline.resumableByteCount(for: ImageRequest(url: url)) == 0)
        ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: png)
        await fixture.tearDown()
    }

    /// A response that may not be resumed is asked for again from zero, next to a control route
    /// that may, which the same pipeline resumes.
    @Test("no Accept-Ranges, or a weak ETag: no Range is sent", .timeLimit(.minutes(1)), arguments: [
        ["ETag": "\"v1\""],
        ["ETag": "W/\"v1\"", "Accept-Ranges": "bytes", "Last-Modified": "Wed, 25 Nov 2026 10:00:00 GMT", "Date": "Thu, 26 Nov 2026 10:00:00 GMT"],
        ["Accept-Ranges": "bytes", "Last-Modified": "Wed, 25 Nov 2026 10:00:00 GMT"],
    ])
    func notResumable(_ headers: [String: String]) async throws {
        let fixture = try await PipelineFixture.start()
        let png = Fixture.image(seed: 17)
        let control = "/control.png"
        fixture.server.serveSequence(Fixture.path, [
            Fixture.response(png, headers: headers, cutAfter: png.count / 2), Fixture.response(png, headers: headers),
        ])
        fixture.server.serveSequence(control, [Fixture.response(png, cutAfter: png.count / 2), Fixture.response(png)])
        let pipeline = fixture.makePipeline()
        let url = fixture.url(Fixture.path)
        let controlURL = fixture.url(control)
        #expect(await Fixture.loadCut(pipeline, url) == 0)
        let kept = await Fixture.loadCut(pipeline, controlURL)

        #expect(try await pipeline.data(for: ImageRequest(url: url)).data == png)
        #expect(try await pipeline.data(for: ImageRequest(url: controlURL)).data == png)
        #expect(Fixture.ranges(fixture) == [nil, nil])
        #expect(Fixture.ranges(fixture, control) == [nil, "bytes=\(kept)-"])
        await fixture.tearDown()
    }
}
