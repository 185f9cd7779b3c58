import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

@Suite("Pipeline: bad input gives typed errors and stores nothing")
struct PipelineErrorTests {
    /// Loads `path` expecting a failure; returns the typed error and checks nothing reached the disk.
    private func failure(_ fixture: ScriptedFixture, _ path: String, _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) async throws -> ImagePipeline.Error? {
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
        #expect(pipeline.memoryCachedImage(for: ImageRequest(url: fixture.url(path))) == nil)
        return caught
    }

    @Test("404 gives badStatusCode")
    func notFound() async throws {
        try await withScriptedFixture { fixture throws in
            let error = try await failure(fixture, "/missing.png")
            guard case .badStatusCode(_, 404) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(error?.isTransient == false)
        }
    }

    @Test("a body cut short gives truncatedResponse")
    func truncated() async throws {
        try await withScriptedFixture { fixture throws in
            let png = ImageFixtures.png(width: 100, height: 100, seed: 9)
            fixture.server.serve("/cut.png", .ok(png, contentType: "image/png", truncatedAfter: png.count / 2))
            let error = try await failure(fixture, "/cut.png")
            guard case .truncatedResponse(_, let received, let expected) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(received < png.count)
            #expect(expected == png.count)
        }
    }

    @Test("a complete response (every announced byte) with no image data gives invalidImage, not truncatedResponse")
    func imageWithoutData() async throws {
        try await withScriptedFixture { fixture throws in
            // A PNG header and a few chunks of nothing: no IDAT, no IEND.
            let body = ImageFixtures.pngHeader(width: 100, height: 100) + Data(repeating: 0xC3, count: 64)
            fixture.server.serve("/short.png", .ok(body, contentType: "image/png"))
            let error = try await failure(fixture, "/short.png")
            guard case .invalidImage(_, .png, let reason) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(reason.contains("IEND") && reason.contains("IDAT"))
            #expect(error?.isTransient == false, "the server sent a broken file: retrying does not help")
        }
    }

    @Test("a complete response whose image ends early (cut inside its last IDAT, no IEND) goes to the decoder, as browsers show it")
    func imageWithoutEndIsDecoded() async throws {
        try await withScriptedFixture { fixture throws in
            let png = ImageFixtures.png(width: 100, height: 100, seed: 9)
            fixture.server.serve("/short.png", .ok(png.prefix(png.count - 20), contentType: "image/png"))
            let response = try await fixture.makePipeline().image(for: fixture.url("/short.png"))
            #expect(response.image.pixelSize == PixelSize(width: 100, height: 100))
        }
    }

    @Test("a decoder's failure is decodingFailed with its reason, and the bytes are not kept")
    func decoderDecides() async throws {
        try await withScriptedFixture { fixture throws in
            let png = ImageFixtures.png(width: 10, height: 10, seed: 9)
            fixture.server.serve("/short.png", .ok(png.prefix(png.count - 20), contentType: "image/png"))
            let error = try await failure(fixture, "/short.png") { $0.decoder = RefusingDecoder() }
            guard case .decodingFailed(_, let underlying) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect("\(underlying)".contains("incomplete zlib stream"))
        }
    }

    @Test("an HTML page served as image/jpeg gives notAnImage")
    func htmlBody() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/login.jpg", .ok(Data("<html><body>Please log in</body></html>".utf8), contentType: "image/jpeg"))
            let error = try await failure(fixture, "/login.jpg")
            guard case .notAnImage(_, let contentType) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(contentType == "image/jpeg")
        }
    }

    @Test("an empty 200 gives emptyResponse")
    func emptyBody() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/empty.png", .ok(Data(), contentType: "image/png"))
            let error = try await failure(fixture, "/empty.png")
            guard case .emptyResponse = error else { Issue.record("got \(String(describing: error))"); return }
        }
    }

    @Test("a 20,000 x 20,000 image is refused before decoding")
    func decompressionBomb() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/bomb.png", .ok(ImageFixtures.pngHeader(width: 20_000, height: 20_000), contentType: "image/png"))
            let error = try await failure(fixture, "/bomb.png")
            guard case .imageTooLarge(_, let size, let limit) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(size == PixelSize(width: 20_000, height: 20_000))
            #expect(limit == ImagePipeline.Configuration().maximumPixelCount)
        }
    }

    @Test("URLs that are missing or use a scheme the pipeline does not allow give invalidURL, with no request")
    func invalidURLs() async throws {
        try await withScriptedFixture { fixture throws in
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
        }
    }

    @Test("an unreachable host gives a transient transport error")
    func unreachableHost() async throws {
        try await withScriptedFixture { fixture throws in
            let url = fixture.url("/gone.png")
            fixture.server.serve("/gone.png", .transportFailure(.cannotConnectToHost))
            let pipeline = fixture.makePipeline()
            await #expect {
                try await pipeline.image(for: url)
            } throws: { error in
                guard let error = error as? ImagePipeline.Error, case .transport = error else { return false }
                return error.isTransient
            }
        }
    }

    @Test("a disk that cannot be written is reported through events; images still load from the network")
    func diskWriteFailure() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let pipeline = fixture.makePipeline()
            let events = pipeline.events()
            _ = pipeline.diskCache?.entryCount // the cache has opened
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
        }
    }

    @Test("a disk cache directory that cannot be created disables the disk cache, not the pipeline")
    func unusableDiskDirectory() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/a.png")
            let blocker = fixture.directory.appendingPathComponent("file")
            try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
            try Data().write(to: blocker)
            let pipeline = fixture.makePipeline { $0.diskCacheDirectory = blocker.appendingPathComponent("cache") }
            #expect(pipeline.diskCache == nil)
            #expect(pipeline.diskCacheOpenError?.operation == .createDirectory)
            #expect(pipeline.statistics.diskCacheFailures == 1)
            #expect(try await pipeline.image(for: fixture.url("/a.png")).source == .network)
        }
    }
}

/// A decoder that refuses every image, as a real decoder refuses a broken one.
private struct RefusingDecoder: ImageDecoding {
    struct Refusal: Error, CustomStringConvertible {
        var description: String { "incomplete zlib stream" }
    }

    func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage { throw Refusal() }
}
