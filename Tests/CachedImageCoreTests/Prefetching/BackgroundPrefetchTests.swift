#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

/// Prefetches that outlive the app: handed to a background session (a fake playing the system's
/// part against the loopback server), staged by its delegate while no pipeline runs, and adopted
/// by the next launch's pipeline, validated like any download.
@Suite("Background prefetch")
struct BackgroundPrefetchTests {
    @available(macOS 14.0, *)
    static func makePipeline(_ fixture: PipelineFixture, _ setup: BackgroundSessionSetup) -> ImagePipeline {
        fixture.makePipeline { $0.backgroundSession = setup }
    }

    /// The files in the staging folder.
    @available(macOS 14.0, *)
    static func staged(_ fixture: PipelineFixture) -> [String] {
        let folder = fixture.directory.appendingPathComponent(BackgroundDownloadStaging.folderName).path
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// A launch that hands `request` to the background session and goes away; returns what the
    /// session got.
    @available(macOS 14.0, *)
    static func previousLaunch(
        _ fixture: PipelineFixture, _ setup: BackgroundSessionSetup, _ session: FakeBackgroundSession, _ request: ImageRequest
    ) async throws -> FakeBackgroundSession.Started {
        let gone = WeakPipeline()
        do {
            let pipeline = makePipeline(fixture, setup)
            gone.value = pipeline
            let prefetcher = ImagePrefetcher(pipeline: pipeline)
            prefetcher.startPrefetching(with: [request], inBackground: true)
            await prefetcher.waitUntilFinished()
        }
        #expect(await eventually { gone.value == nil }, "the first launch's pipeline is gone")
        return try #require(session.started.last)
    }

    @Test("a download finished while the app was away is adopted on relaunch: shown from disk, no request, fresh, revalidated when stale, staging empty")
    @available(macOS 14.0, *)
    func adoptedOnRelaunch() async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/tomorrow.png", headers: ["Cache-Control": "max-age=600", "ETag": "\"v1\""])
        let (setup, session) = FakeBackgroundSession.setup()
        let request = ImageRequest(url: fixture.url("/tomorrow.png"))
        let started = try await Self.previousLaunch(fixture, setup, session, request)
        #expect(session.started.count == 1)
        #expect(started.request.value(forHTTPHeaderField: "Accept") == HTTPRequestDefaults.accept)

        // The system downloads it and relaunches the app in the background to deliver it.
        #expect(try await session.finish(started))
        #expect(fixture.server.requestCount(for: "/tomorrow.png") == 1)
        #expect(Self.staged(fixture).count == 2, "bytes and record wait in the staging folder")

        fixture.clock.advance(by: 60)
        let relaunched = Self.makePipeline(fixture, setup)
        let response = try await relaunched.image(for: request)
        #expect(response.source == .disk)
        #expect(response.image.data == png)
        #expect(fixture.server.requestCount(for: "/tomorrow.png") == 0 + 1, "no request on relaunch")
        let entry = try #require(relaunched.diskCache?.entry(forKey: request.cacheKey))
        #expect(entry.data == png)
        #expect(entry.metadata.isFresh(at: fixture.clock.now, heuristic: .default))
        #expect(entry.metadata.hasValidators)
        #expect(Self.staged(fixture).isEmpty)

        // Its freshness is the response's: once stale, it is revalidated like any download.
        fixture.clock.advance(by: 600)
        let later = try await relaunched.image(for: ImageRequest(url: fixture.url("/tomorrow.png"), options: [.skipMemoryCache]))
        #expect(later.source == .revalidated)
        #expect(fixture.server.requestCount(for: "/tomorrow.png") == 2)
        #expect(fixture.server.requests(for: "/tomorrow.png").last?.header("If-None-Match") == "\"v1\"")
        await fixture.tearDown()
    }

    @Test("a download the system made hours after the hand-over is adopted as old as its response, not as the hand-over")
    @available(macOS 14.0, *)
    func agedFromTheResponse() async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/issue.png", headers: ["Cache-Control": "max-age=3600"])
        let (setup, session) = FakeBackgroundSession.setup()
        let request = ImageRequest(url: fixture.url("/issue.png"))
        let started = try await Self.previousLaunch(fixture, setup, session, request) // 22:00
        fixture.clock.advance(by: 6 * 3600) // The system downloads it at 04:00.
        #expect(try await session.finish(started) { _, headers in
            headers["Date"] = HTTPDate.format(fixture.clock.now)
        })
        fixture.clock.advance(by: 60)
        let relaunched = Self.makePipeline(fixture, setup)
        let response = try await relaunched.image(for: request)
        #expect(response.source == .disk, "fresh: a minute old")
        #expect(response.image.data == png)
        #expect(fixture.server.requestCount(for: "/issue.png") == 1)
        await fixture.tearDown()
    }

    enum Rejection: String, CaseIterable, Sendable {
        case shorterThanContentLength, cutWithoutContentLength, notFound, serverError, notAnImage
    }

    @Test("a truncated, failed or non-image download is never adopted: the request goes to the network and the staged files are deleted", arguments: Rejection.allCases)
    @available(macOS 14.0, *)
    func rejected(_ rejection: Rejection) async throws {
        let fixture = try await PipelineFixture.start()
        let png = ImageFixtures.png(width: 64, height: 48, seed: 3)
        let path = "/rejected.png"
        switch rejection {
        case .shorterThanContentLength, .cutWithoutContentLength:
            fixture.server.serve(path, .ok(png, contentType: "image/png", headers: ["Cache-Control": "max-age=600"]))
        case .notFound:
            fixture.server.serve(path, .status(404, body: png, headers: ["Content-Type": "image/png", "Cache-Control": "max-age=600"]))
        case .serverError:
            fixture.server.serve(path, .status(500, body: png, headers: ["Content-Type": "image/png", "Cache-Control": "max-age=600"]))
        case .notAnImage:
            fixture.server.serve(path, .ok(Data("<html>sign in</html>".utf8), contentType: "text/html", headers: ["Cache-Control": "max-age=600"]))
        }
        let (setup, session) = FakeBackgroundSession.setup()
        let request = ImageRequest(url: fixture.url(path))
        let started = try await Self.previousLaunch(fixture, setup, session, request)
        #expect(try await session.finish(started) { data, headers in
            switch rejection {
            case .shorterThanContentLength:
                headers["Content-Length"] = String(data.count)
                data = data.prefix(data.count - 100)
            case .cutWithoutContentLength:
                headers["Content-Length"] = nil
                data = data.prefix(data.count - 100)
            case .notFound, .serverError, .notAnImage:
                break
            }
        })
        #expect(Self.staged(fixture).count == 2)

        fixture.server.serve(path, .ok(png, contentType: "image/png", headers: ["Cache-Control": "max-age=600"]))
        let relaunched = Self.makePipeline(fixture, setup)
        let response = try await relaunched.image(for: request)
        #expect(response.source == .network)
        #expect(response.image.data == png)
        #expect(fixture.server.requestCount(for: path) == 2)
        #expect(Self.staged(fixture).isEmpty)
        await fixture.tearDown()
    }

    enum Limit: String, CaseIterable, Sendable {
        case pixels, bytes
    }

    @Test("a download over the pixel or byte limit is never adopted and its staged files are deleted", arguments: Limit.allCases)
    @available(macOS 14.0, *)
    func overLimit(_ limit: Limit) async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/huge.png", headers: ["Cache-Control": "max-age=600"])
        let (setup, session) = FakeBackgroundSession.setup()
        let request = ImageRequest(url: fixture.url("/huge.png"))
        let started = try await Self.previousLaunch(fixture, setup, session, request)
        #expect(try await session.finish(started))
        #expect(Self.staged(fixture).count == 2)

        let relaunched = fixture.makePipeline {
            $0.backgroundSession = setup
            switch limit {
            case .pixels: $0.maximumPixelCount = 64 * 48 - 1
            case .bytes: $0.maximumResponseBytes = png.count - 1
            }
        }
        await relaunched.adoptBackgroundDownloads()
        #expect(Self.staged(fixture).isEmpty)
        #expect(relaunched.diskCache?.containsEntry(forKey: request.cacheKey) == false)
        await fixture.tearDown()
    }

    @Test("a staged download the file system cannot read is kept for the next sweep, not refused as too large")
    @available(macOS 14.0, *)
    func unreadableIsKept() async throws {
        let fixture = try await PipelineFixture.start()
        let (setup, _) = FakeBackgroundSession.setup()
        let pipeline = Self.makePipeline(fixture, setup)
        let downloads = try #require(pipeline.backgroundDownloads)
        let url = fixture.url("/locked.png")
        let folder = fixture.directory.appendingPathComponent(BackgroundDownloadStaging.folderName)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let record = BackgroundDownloadRecord(
            ticket: .init(cacheKey: ImageRequest(url: url).cacheKey, requestTime: fixture.clock.now), url: url, requestHeaders: [:],
            statusCode: 200, responseHeaders: ["Content-Type": "image/png"], responseTime: fixture.clock.now
        )
        let item = BackgroundDownloadStaging.Item(
            dataPath: folder.appendingPathComponent("locked.1.1.data").path, recordPath: folder.appendingPathComponent("locked.1.1.json").path
        )
        try record.encoded().write(to: URL(fileURLWithPath: item.recordPath))
        // The bytes cannot be opened (here: not there; on a locked device: data protection).
        #expect(throws: POSIXError.self) { try downloads.adopt(item) }
        #expect(FileManager.default.fileExists(atPath: item.recordPath), "kept for the next sweep")
        await fixture.tearDown()
    }

    @Test("half-staged items are ignored and cleaned: bytes whose writer is gone, a record without bytes; a staging in flight is left alone")
    @available(macOS 14.0, *)
    func halfStaged() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/half.png", headers: ["Cache-Control": "max-age=600"])
        let request = ImageRequest(url: fixture.url("/half.png"))
        let png = ImageFixtures.png(width: 64, height: 48, seed: 1)
        let folder = fixture.directory.appendingPathComponent(BackgroundDownloadStaging.folderName)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let entry = KeyHasher.fileName(for: request.cacheKey)
        let deadWriter = "\(entry).\(Int32.max).1"
        let liveWriter = "\(entry).\(getpid()).2"
        let noBytes = "\(entry).\(Int32.max).3"
        let record = BackgroundDownloadRecord(
            ticket: .init(cacheKey: request.cacheKey, requestTime: fixture.clock.now), url: request.url!, requestHeaders: [:],
            statusCode: 200, responseHeaders: ["Content-Type": "image/png", "Cache-Control": "max-age=600", "Content-Length": "\(png.count)"],
            responseTime: fixture.clock.now
        )
        try png.write(to: folder.appendingPathComponent(deadWriter + ".data"))
        try png.write(to: folder.appendingPathComponent(liveWriter + ".data"))
        try record.encoded().write(to: folder.appendingPathComponent(noBytes + ".json"))

        let (setup, _) = FakeBackgroundSession.setup()
        let pipeline = Self.makePipeline(fixture, setup)
        await pipeline.adoptBackgroundDownloads()
        #expect(Self.staged(fixture) == [liveWriter + ".data"], "only the staging in flight is left")
        #expect(try await pipeline.image(for: request).source == .network)
        #expect(fixture.server.requestCount(for: "/half.png") == 1)
        await fixture.tearDown()
    }

    @Test("a staged download older than the entry on disk does not replace it")
    @available(macOS 14.0, *)
    func olderThanStored() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/photo.png", seed: 1, headers: ["Cache-Control": "max-age=600"])
        let (setup, session) = FakeBackgroundSession.setup()
        let request = ImageRequest(url: fixture.url("/photo.png"))
        let started = try await Self.previousLaunch(fixture, setup, session, request)
        #expect(try await session.finish(started))
        // A launch without the background session (an extension) downloads a newer version.
        fixture.clock.advance(by: 10)
        let newer = fixture.servePNG("/photo.png", seed: 2, headers: ["Cache-Control": "max-age=600"])
        do {
            let plain = fixture.makePipeline()
            _ = try await plain.image(for: request)
            plain.diskCache?.flush()
        }
        let relaunched = Self.makePipeline(fixture, setup)
        await relaunched.adoptBackgroundDownloads()
        #expect(relaunched.diskCache?.entry(forKey: request.cacheKey)?.data == newer)
        #expect(Self.staged(fixture).isEmpty)
        await fixture.tearDown()
    }

    @Test("a .pinOnDisk prefetch is adopted pinned")
    @available(macOS 14.0, *)
    func pinnedPrefetch() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/issue.png", headers: ["Cache-Control": "max-age=600"])
        let (setup, session) = FakeBackgroundSession.setup()
        let request = ImageRequest(url: fixture.url("/issue.png"), options: [.pinOnDisk])
        let started = try await Self.previousLaunch(fixture, setup, session, request)
        #expect(try await session.finish(started))
        let relaunched = Self.makePipeline(fixture, setup)
        await relaunched.adoptBackgroundDownloads()
        #expect(relaunched.diskCache?.isEntryPinned(forKey: request.cacheKey) == true, "kept offline")
        await fixture.tearDown()
    }

    @Test("a redirected download is adopted stale, as after a temporary redirect: asked again before it is shown")
    @available(macOS 14.0, *)
    func redirectedIsStale() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/cdn/photo.png", headers: ["Cache-Control": "max-age=600"])
        fixture.server.serve("/photo.png", .status(302, headers: ["Location": fixture.url("/cdn/photo.png").absoluteString]))
        let (setup, session) = FakeBackgroundSession.setup()
        let request = ImageRequest(url: fixture.url("/photo.png"))
        let started = try await Self.previousLaunch(fixture, setup, session, request)
        #expect(try await session.finish(started))
        let relaunched = Self.makePipeline(fixture, setup)
        await relaunched.adoptBackgroundDownloads()
        let entry = try #require(relaunched.diskCache?.entry(forKey: request.cacheKey), "stored")
        #expect(!entry.metadata.isFresh(at: fixture.clock.now, heuristic: .default))
        #expect(try await relaunched.image(for: request).source == .network, "asked again (no validators): downloaded")
        #expect(fixture.server.requestCount(for: "/photo.png") == 2)
        await fixture.tearDown()
    }

    @Test("a download finished while the app runs is adopted at once")
    @available(macOS 14.0, *)
    func adoptedWhileRunning() async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/now.png", headers: ["Cache-Control": "max-age=600"])
        let (setup, session) = FakeBackgroundSession.setup()
        let pipeline = Self.makePipeline(fixture, setup)
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        let request = ImageRequest(url: fixture.url("/now.png"))
        prefetcher.startPrefetching(with: [request], inBackground: true)
        await prefetcher.waitUntilFinished()
        #expect(try await session.finish(try #require(session.started.first)))
        // Nothing but the staging itself starts the adoption.
        #expect(await eventually { Self.staged(fixture).isEmpty })
        #expect(await eventually { pipeline.diskCache?.containsEntry(forKey: request.cacheKey) == true })
        #expect(pipeline.diskCache?.entry(forKey: request.cacheKey)?.data == png)
        await fixture.tearDown()
    }
}

/// A pipeline held weakly, readable from any task.
final class WeakPipeline: Sendable {
    private struct Reference {
        weak var pipeline: ImagePipeline?
    }

    private let reference = Locked(Reference())

    var value: ImagePipeline? {
        get { reference.withLock { $0.pipeline } }
        set { reference.withLock { $0.pipeline = newValue } }
    }
}
