import Foundation
import ImageFixtures
import Testing
import LoopbackServer
@testable import CachedImageCore

@Suite("Pipeline: bad input gives typed errors and stores nothing")
struct PipelineErrorTests {
    /// Loads `path` expecting a failure; returns the typed error and checks nothing reached the disk.
    @available(macOS 14.0, *)
    private func failure(_ fixture: PipelineFixture, _ path: String, _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) async throws -> ImagePipeline.Error? {
        let pipeline = fixture.makePipeline(configure)
        var caught: ImagePipeline.Error?
        do {
            _ = try await pipeline.image(for: fixture.url(path))
            Issue.record("expected \(path) to fail")
        } catch let error as ImagePipeline.Error {
            caught = error
            #expect(error.url == fixture.url(path))
        }
        pipeline.diskCache?.flush()
        #expect(pipeline.diskCache?.entryCount == 0)
        #expect(pipeline.diskCache?.totalSize == 0)
        #expect(pipeline.cachedImage(for: ImageRequest(url: fixture.url(path))) == nil)
        return caught
    }

    @Test("404 gives badStatusCode")
    @available(macOS 14.0, *)
    func notFound() async throws {
        let fixture = try await PipelineFixture.start()
        let error = try await failure(fixture, "/missing.png")
        guard case .badStatusCode(_, 404) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(error?.isTransient == false)
        await fixture.tearDown()
    }

    @Test("a body cut short gives truncatedResponse")
    @available(macOS 14.0, *)
    func truncated() async throws {
        let fixture = try await PipelineFixture.start()
        let png = ImageFixtures.png(width: 100, height: 100, seed: 9)
        fixture.server.serve("/cut.png", .ok(png, contentType: "image/png", truncatedAfter: png.count / 2))
        let error = try await failure(fixture, "/cut.png")
        guard case .truncatedResponse(_, let received, let expected) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(received < png.count)
        #expect(expected == png.count)
        await fixture.tearDown()
    }

    @Test("a complete response (every announced byte) whose image has no end gives invalidImage, not truncatedResponse")
    @available(macOS 14.0, *)
    func imageWithoutEnd() async throws {
        let fixture = try await PipelineFixture.start()
        let png = ImageFixtures.png(width: 100, height: 100, seed: 9)
        fixture.server.serve("/short.png", .ok(png.prefix(png.count - 20), contentType: "image/png"))
        let error = try await failure(fixture, "/short.png")
        guard case .invalidImage(_, .png, let reason) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.contains("IEND"))
        #expect(error?.isTransient == false, "the server sent a broken file: retrying does not help")
        await fixture.tearDown()
    }

    @Test("an HTML page served as image/jpeg gives notAnImage")
    @available(macOS 14.0, *)
    func htmlBody() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.server.serve("/login.jpg", .ok(Data("<html><body>Please log in</body></html>".utf8), contentType: "image/jpeg"))
        let error = try await failure(fixture, "/login.jpg")
        guard case .notAnImage(_, let contentType) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(contentType == "image/jpeg")
        await fixture.tearDown()
    }

    @Test("an empty 200 gives emptyResponse")
    @available(macOS 14.0, *)
    func emptyBody() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.server.serve("/empty.png", .ok(Data(), contentType: "image/png"))
        let error = try await failure(fixture, "/empty.png")
        guard case .emptyResponse = error else { Issue.record("got \(String(describing: error))"); return }
        await fixture.tearDown()
    }

    @Test("a 20,000 x 20,000 image is refused before decoding")
    @available(macOS 14.0, *)
    func decompressionBomb() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.server.serve("/bomb.png", .ok(ImageFixtures.pngHeader(width: 20_000, height: 20_000), contentType: "image/png"))
        let error = try await failure(fixture, "/bomb.png")
        guard case .imageTooLarge(_, let size, let limit) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(size == PixelSize(width: 20_000, height: 20_000))
        #expect(limit == ImagePipeline.Configuration().maxPixelCount)
        await fixture.tearDown()
    }

    @Test("URLs that are missing or use a scheme the pipeline does not allow give invalidURL, with no request")
    @available(macOS 14.0, *)
    func invalidURLs() async throws {
        let fixture = try await PipelineFixture.start()
        let pipeline = fixture.makePipeline()
        for request in [ImageRequest(url: nil), ImageRequest(url: URL(string: "ftp://example.com/a.png"))] {
            await #expect {
                try await pipeline.image(for: request)
            } throws: { error in
                guard case .invalidURL = error as? ImagePipeline.Error else { return false }
                return true
            }
        }
        #expect(fixture.server.totalRequestCount == 0)
        await fixture.tearDown()
    }

    @Test("an unreachable host gives a transient transport error")
    @available(macOS 14.0, *)
    func unreachableHost() async throws {
        let fixture = try await PipelineFixture.start()
        let url = fixture.url("/gone.png")
        await fixture.server.shutdown()
        let pipeline = fixture.makePipeline()
        await #expect {
            try await pipeline.image(for: url)
        } throws: { error in
            guard let error = error as? ImagePipeline.Error, case .transport = error else { return false }
            return error.isTransient
        }
        try? FileManager.default.removeItem(at: fixture.directory)
    }

    @Test("a disk that cannot be written is reported through events; images still load from the network")
    @available(macOS 14.0, *)
    func diskWriteFailure() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/a.png")
        let pipeline = fixture.makePipeline()
        let events = pipeline.events()
        // Replace the cache directory with a regular file: every write now fails.
        try FileManager.default.removeItem(at: fixture.directory)
        try Data("not a directory".utf8).write(to: fixture.directory)

        let response = try await pipeline.image(for: fixture.url("/a.png"))
        #expect(response.source == .network)
        pipeline.diskCache?.flush()

        var diskError: DiskCache.Error?
        for await event in events {
            if case .diskCacheFailed(let error) = event {
                diskError = error
                break
            }
        }
        #expect(diskError?.operation == .write)
        #expect(pipeline.diskCache?.entryCount == 0)
        await fixture.server.shutdown()
        try? FileManager.default.removeItem(at: fixture.directory)
    }

    @Test("a disk cache directory that cannot be created disables the disk cache, not the pipeline")
    @available(macOS 14.0, *)
    func unusableDiskDirectory() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/a.png")
        let blocker = fixture.directory.appendingPathComponent("file")
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        try Data().write(to: blocker)
        let pipeline = fixture.makePipeline { $0.diskCacheDirectory = blocker.appendingPathComponent("cache") }
        #expect(pipeline.diskCache == nil)
        #expect(try await pipeline.image(for: fixture.url("/a.png")).source == .network)
        await fixture.tearDown()
    }
}
