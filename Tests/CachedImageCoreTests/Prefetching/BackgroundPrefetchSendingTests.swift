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

/// Background prefetches from the app's side: what is handed to the session (a fake playing the
/// system's part against the loopback server), what stopping and emptying the caches cancel,
/// and when the app's completion handler is called.
@Suite("Background prefetch: sending, stopping, events")
struct BackgroundPrefetchSendingTests {
    @available(macOS 14.0, *)
    static func makePipeline(_ fixture: PipelineFixture, _ setup: BackgroundSessionSetup) -> ImagePipeline {
        BackgroundPrefetchTests.makePipeline(fixture, setup)
    }

    @available(macOS 14.0, *)
    static func staged(_ fixture: PipelineFixture) -> [String] {
        BackgroundPrefetchTests.staged(fixture)
    }

    /// Stages a fresh PNG for `path` as the session's delegate in another process would: nothing
    /// in this one adopts it until something asks. Returns its cache key.
    @available(macOS 14.0, *)
    static func stagePNG(_ path: String, seed: UInt64, _ fixture: PipelineFixture, _ inbox: BackgroundDownloadInbox) throws -> String {
        let png = ImageFixtures.png(width: 64, height: 48, seed: seed)
        let url = fixture.url(path)
        let key = ImageRequest(url: url).cacheKey
        let download = fixture.directory.appendingPathComponent("download-\(seed).tmp")
        try png.write(to: download)
        try inbox.staging.stage(fileAt: download, record: BackgroundDownloadRecord(
            ticket: .init(cacheKey: key, requestTime: fixture.clock.now), url: url, requestHeaders: [:], statusCode: 200,
            responseHeaders: ["Content-Type": "image/png", "Cache-Control": "max-age=600", "Content-Length": "\(png.count)"],
            responseTime: fixture.clock.now
        ))
        return key
    }

    @Test("only what the disk cache lacks fresh goes to the background session, once while it runs")
    @available(macOS 14.0, *)
    func freshRequestsAreNotSent() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/fresh.png", headers: ["Cache-Control": "max-age=600"])
        fixture.servePNG("/stale.png", seed: 2, headers: ["Cache-Control": "max-age=10"])
        fixture.servePNG("/new.png", seed: 3)
        let (setup, session) = FakeBackgroundSession.setup()
        let pipeline = Self.makePipeline(fixture, setup)
        _ = try await pipeline.image(for: fixture.url("/fresh.png"))
        _ = try await pipeline.image(for: fixture.url("/stale.png"))
        fixture.clock.advance(by: 60)

        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        let requests = ["/fresh.png", "/stale.png", "/new.png", "/new.png"].map { ImageRequest(url: fixture.url($0)) }
        prefetcher.startPrefetching(with: requests, inBackground: true)
        await prefetcher.waitUntilFinished()
        #expect(session.started.map { $0.request.url?.path } == ["/stale.png", "/new.png"])
        prefetcher.startPrefetching(with: [ImageRequest(url: fixture.url("/new.png"))], inBackground: true)
        await prefetcher.waitUntilFinished()
        #expect(session.started.count == 2, "a download running is not started twice")
        prefetcher.stopPrefetching(with: [ImageRequest(url: fixture.url("/new.png"))])
        await prefetcher.waitUntilFinished()
        #expect(await session.runningDownloads().count == 1, "stopping cancels the background download")
        #expect(fixture.server.requestCount(for: "/new.png") == 0)
        await fixture.tearDown()
    }

    @Test("a prefetcher's stop cancels only the background downloads it started, and asks the session nothing when it started none")
    @available(macOS 14.0, *)
    func stopCancelsOnlyItsOwn() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/tomorrow.png", headers: ["Cache-Control": "max-age=600"])
        let (setup, session) = FakeBackgroundSession.setup()
        let pipeline = Self.makePipeline(fixture, setup)
        let request = ImageRequest(url: fixture.url("/tomorrow.png"))
        let overnight = ImagePrefetcher(pipeline: pipeline)
        overnight.startPrefetching(with: [request], inBackground: true)
        await overnight.waitUntilFinished()
        let listingsAfterHandOver = session.listings

        // The feed's list prefetcher stops the rows scrolled away, the same image among them.
        let list = ImagePrefetcher(pipeline: pipeline)
        list.startPrefetching(with: [ImageRequest(url: fixture.url("/other.png"))])
        list.stopPrefetching(with: [request])
        await list.waitUntilFinished()
        #expect(await session.runningDownloads().count == 1, "the overnight download runs on")
        #expect(session.listings == listingsAfterHandOver + 1, "only this test asked the session")

        overnight.stopPrefetching(with: [request])
        await overnight.waitUntilFinished()
        #expect(await session.runningDownloads().isEmpty, "its own prefetcher cancels it")
        await fixture.tearDown()
    }

    @Test("start, stop and start again at once: the calls take effect in their order, so the image downloads")
    @available(macOS 14.0, *)
    func stopThenStartAgain() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/tomorrow.png", headers: ["Cache-Control": "max-age=600"])
        let (setup, session) = FakeBackgroundSession.setup()
        let pipeline = Self.makePipeline(fixture, setup)
        let request = ImageRequest(url: fixture.url("/tomorrow.png"))
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        prefetcher.startPrefetching(with: [request], inBackground: true)
        prefetcher.stopPrefetching(with: [request])
        prefetcher.startPrefetching(with: [request], inBackground: true)
        await prefetcher.waitUntilFinished()
        #expect(session.started.count == 2, "sent, cancelled, sent again")
        #expect(await session.runningDownloads().count == 1)

        // And the last call a stop: nothing runs.
        prefetcher.stopPrefetching(with: [request])
        prefetcher.startPrefetching(with: [request], inBackground: true)
        prefetcher.stopPrefetching(with: [request])
        await prefetcher.waitUntilFinished()
        #expect(await session.runningDownloads().isEmpty)
        await fixture.tearDown()
    }

    @Test("the app's completion handler is called once the session's events are done, in either order, and only for its identifier")
    @available(macOS 14.0, *)
    func completionHandler() async throws {
        let fixture = try await PipelineFixture.start()
        let (setup, session) = FakeBackgroundSession.setup()
        let pipeline = Self.makePipeline(fixture, setup)
        let inbox = try #require(session.inbox.withLock { $0 })
        let calls = Recorder<String>()

        #expect(!pipeline.handleBackgroundEvents(forSessionIdentifier: "another.session") { calls.append("other") })
        #expect(pipeline.handleBackgroundEvents(forSessionIdentifier: setup.identifier) { calls.append("first") })
        await pipeline.adoptBackgroundDownloads()
        await MainActor.run {}
        #expect(calls.values.isEmpty, "not before the events are done")
        inbox.didFinishEvents()
        #expect(await eventually { calls.values == ["first"] })

        // The events ended before the app handed its handler over: it is called at once.
        inbox.didFinishEvents()
        #expect(pipeline.handleBackgroundEvents(forSessionIdentifier: setup.identifier) { calls.append("second") })
        #expect(await eventually { calls.values == ["first", "second"] })
        await fixture.tearDown()
    }

    @Test("the app's completion handler is called once the session's downloads are in the disk cache")
    @available(macOS 14.0, *)
    func completionHandlerAfterAdoption() async throws {
        let fixture = try await PipelineFixture.start()
        let (setup, session) = FakeBackgroundSession.setup()
        let pipeline = Self.makePipeline(fixture, setup)
        let inbox = try #require(session.inbox.withLock { $0 })
        let key = try Self.stagePNG("/overnight.png", seed: 1, fixture, inbox)
        // (On the main actor: the handler's type says so, and the compiler holds the call to it.)
        let seen = Recorder<Bool>()
        #expect(pipeline.handleBackgroundEvents(forSessionIdentifier: setup.identifier) {
            seen.append(pipeline.diskCache?.containsEntry(forKey: key) == true)
        })
        inbox.didFinishEvents()
        #expect(await eventually { seen.values.count == 1 })
        #expect(seen.values.first == true, "adopted before the app may be suspended")
        #expect(Self.staged(fixture).isEmpty)
        await fixture.tearDown()
    }

    @Test(
        "SwiftUI's background task: the async handling returns once the events are done and the downloads are adopted, at once for another identifier, and when cancelled",
        .timeLimit(.minutes(1))
    )
    @available(macOS 14.0, *)
    func asyncHandling() async throws {
        let fixture = try await PipelineFixture.start()
        let (setup, session) = FakeBackgroundSession.setup()
        let pipeline = Self.makePipeline(fixture, setup)
        let inbox = try #require(session.inbox.withLock { $0 })
        #expect(await pipeline.handleBackgroundEvents(forSessionIdentifier: "another.session") == false)
        let first = try Self.stagePNG("/overnight.png", seed: 2, fixture, inbox)
        let returned = Recorder<Bool>()
        let handling = Task {
            let handled = await pipeline.handleBackgroundEvents(forSessionIdentifier: setup.identifier)
            returned.append(pipeline.diskCache?.containsEntry(forKey: first) == true)
            return handled
        }
        #expect(await eventually { inbox.waitingHandlerCount == 1 })
        #expect(returned.values.isEmpty, "not before the session's events are done")
        inbox.didFinishEvents()
        #expect(await handling.value)
        #expect(returned.values == [true], "adopted before the system may suspend the app")

        // The events ended before the background task ran: it returns after the adoption.
        let second = try Self.stagePNG("/morning.png", seed: 3, fixture, inbox)
        inbox.didFinishEvents()
        #expect(await pipeline.handleBackgroundEvents(forSessionIdentifier: setup.identifier))
        #expect(pipeline.diskCache?.containsEntry(forKey: second) == true)

        // The system ends the background time first: the wait ends with it.
        let cancelled = Task { await pipeline.handleBackgroundEvents(forSessionIdentifier: setup.identifier) }
        #expect(await eventually { inbox.waitingHandlerCount == 1 })
        cancelled.cancel()
        #expect(await cancelled.value)
        // The events' end, later, resumes nothing twice.
        inbox.didFinishEvents()
        await pipeline.adoptBackgroundDownloads()
        await fixture.tearDown()
    }

    @Test("an end of events seen before a new batch does not call the next handler early")
    @available(macOS 14.0, *)
    func staleEndOfEvents() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/a.png", headers: ["Cache-Control": "max-age=600"])
        let (setup, session) = FakeBackgroundSession.setup()
        let pipeline = Self.makePipeline(fixture, setup)
        let inbox = try #require(session.inbox.withLock { $0 })
        inbox.didFinishEvents() // A batch nobody forwarded a handler for.
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        prefetcher.startPrefetching(with: [ImageRequest(url: fixture.url("/a.png"))], inBackground: true)
        await prefetcher.waitUntilFinished()
        #expect(try await session.finish(try #require(session.started.first))) // The next batch begins.
        let calls = Recorder<String>()
        inbox.addCompletionHandler { calls.append("next") } // Called synchronously when at once.
        #expect(calls.values.isEmpty, "its batch has not ended yet")
        inbox.didFinishEvents()
        #expect(calls.values == ["next"])
        await fixture.tearDown()
    }

    @Test("a token the request modifier adds goes to the session but neither keys nor keeps the adopted download off disk")
    @available(macOS 14.0, *)
    func requestModifierToken() async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/private.png", headers: ["Cache-Control": "max-age=600"])
        let (setup, session) = FakeBackgroundSession.setup()
        let pipeline = fixture.makePipeline {
            $0.backgroundSession = setup
            $0.requestModifier = { request in
                var request = request
                request.setValue("Bearer token", forHTTPHeaderField: "Authorization")
                return request
            }
        }
        let request = ImageRequest(url: fixture.url("/private.png"))
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        prefetcher.startPrefetching(with: [request], inBackground: true)
        await prefetcher.waitUntilFinished()
        let started = try #require(session.started.first)
        #expect(started.request.value(forHTTPHeaderField: "Authorization") == "Bearer token")
        #expect(try await session.finish(started))
        await pipeline.adoptBackgroundDownloads()
        #expect(pipeline.diskCache?.entry(forKey: request.cacheKey)?.data == png)
        #expect(try await pipeline.image(for: request).source == .disk)
        #expect(fixture.server.requestCount(for: "/private.png") == 1)
        await fixture.tearDown()
    }

    @Test("a request carrying Authorization is not sent unless authorized responses are stored, and the token is kept out of the ticket")
    @available(macOS 14.0, *)
    func authorizationRule() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/private.png", headers: ["Cache-Control": "max-age=600"])
        var urlRequest = URLRequest(url: fixture.url("/private.png"))
        urlRequest.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        let request = ImageRequest(urlRequest: urlRequest)

        let (setup, session) = FakeBackgroundSession.setup()
        let prefetcher = ImagePrefetcher(pipeline: Self.makePipeline(fixture, setup))
        prefetcher.startPrefetching(with: [request], inBackground: true)
        await prefetcher.waitUntilFinished()
        #expect(session.started.isEmpty, "it would never be stored")

        let (allowed, allowedSession) = FakeBackgroundSession.setup()
        let storing = fixture.makePipeline {
            $0.backgroundSession = allowed
            $0.storesAuthorizedResponsesOnDisk = true
        }
        let allowing = ImagePrefetcher(pipeline: storing)
        allowing.startPrefetching(with: [request], inBackground: true)
        await allowing.waitUntilFinished()
        let started = try #require(allowedSession.started.first)
        #expect(started.request.value(forHTTPHeaderField: "Authorization") == "Bearer secret")
        #expect(!started.description.contains("secret"))
        #expect(try await allowedSession.finish(started))
        await storing.adoptBackgroundDownloads()
        #expect(try await storing.image(for: request).source == .disk)
        #expect(fixture.server.requestCount(for: "/private.png") == 1)
        await fixture.tearDown()
    }

    @Test("emptying the caches cancels the background downloads and deletes what they staged")
    @available(macOS 14.0, *)
    func removeAllCancels() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/a.png", headers: ["Cache-Control": "max-age=600"])
        let (setup, session) = FakeBackgroundSession.setup()
        let pipeline = Self.makePipeline(fixture, setup)
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        prefetcher.startPrefetching(with: [ImageRequest(url: fixture.url("/a.png"))], inBackground: true)
        await prefetcher.waitUntilFinished()
        #expect(await session.runningDownloads().count == 1)
        // A download being staged (its bytes moved in, its record not yet written).
        let folder = fixture.directory.appendingPathComponent(BackgroundDownloadStaging.folderName)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("bytes".utf8).write(to: folder.appendingPathComponent("\(KeyHasher.fileName(for: "k")).\(getpid()).1.data"))

        pipeline.removeAllCachedImages()
        #expect(await eventually { Self.staged(fixture).isEmpty })
        #expect(await session.runningDownloads().isEmpty)
        await fixture.tearDown()
    }

    @Test("a download handed over before the caches were emptied is not adopted, even when it finishes after")
    @available(macOS 14.0, *)
    func clearedDownloadIsNotAdopted() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/a.png", headers: ["Cache-Control": "max-age=600"])
        let (setup, session) = FakeBackgroundSession.setup()
        let pipeline = Self.makePipeline(fixture, setup)
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        let request = ImageRequest(url: fixture.url("/a.png"))
        prefetcher.startPrefetching(with: [request], inBackground: true)
        await prefetcher.waitUntilFinished()
        let started = try #require(session.started.first)
        fixture.clock.advance(by: 1)

        pipeline.removeAllCachedImages()
        // The system finished it before the cancel reached it.
        #expect(try await session.finish(started))
        await pipeline.adoptBackgroundDownloads()
        #expect(pipeline.diskCache?.containsEntry(forKey: request.cacheKey) == false, "Clear cache leaves nothing behind")
        #expect(await eventually { Self.staged(fixture).isEmpty })
        await fixture.tearDown()
    }
}
