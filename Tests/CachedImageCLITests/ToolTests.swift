import Foundation
import Testing
import ImageFixtures
import LoopbackServer
import CachedImageCore
@testable import CachedImageCLI

/// The cache tools against a real loopback server and a temporary cache directory.
@Suite("Tools")
struct ToolTests {
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    struct Fixture {
        let server: LoopbackServer
        let directory: URL

        static func start() async throws -> Fixture {
            let server = try await LoopbackServer.start()
            let png = ImageFixtures.png(width: 40, height: 30, seed: 1)
            let jpeg = ImageFixtures.jpeg(width: 64, height: 48, seed: 2, detail: 4)
            server.serve("/a.png", .ok(png, contentType: "image/png", headers: ["Cache-Control": "max-age=60", "ETag": "\"a\""]))
            server.serve("/b.jpg", .ok(jpeg, contentType: "image/jpeg", headers: ["Cache-Control": "max-age=86400"]))
            server.serve("/c.jpg", .ok(ImageFixtures.jpeg(width: 32, height: 32, seed: 3), contentType: "image/jpeg"))
            server.serve("/page.html", .ok(Data("<html>nope</html>".utf8), contentType: "text/html"))
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("cachedimage-tool-tests-\(UUID().uuidString)", isDirectory: true)
            return Fixture(server: server, directory: directory)
        }

        func url(_ path: String) -> String { server.url(path).absoluteString }

        func fetcher() throws -> ImageFetcher {
            ImageFetcher(pipeline: try ToolPipeline.make(cacheDirectory: directory, diskLimit: 10_000_000, timeout: 5))
        }

        func tearDown() async {
            await server.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test("fetch: network first, then disk without a request; --revalidate gets a 304")
    func fetchSources() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let fixture = try await Fixture.start()
        defer { Task { await fixture.tearDown() } }

        let first = try await fixture.fetcher().fetch(fixture.url("/a.png"), options: .init()).get()
        #expect(first.source == .network)
        #expect(first.format == .png)
        #expect(first.pixelSize == PixelSize(width: 40, height: 30))
        try fixture.fetcher().finish()

        // A new process: a new pipeline over the same directory.
        let fetcher = try fixture.fetcher()
        let second = try await fetcher.fetch(fixture.url("/a.png"), options: .init()).get()
        #expect(second.source == .disk)
        #expect(second.byteCount == first.byteCount)
        #expect(fixture.server.requestCount(for: "/a.png") == 1)

        let revalidated = try await fetcher.fetch(fixture.url("/a.png"), options: .init(revalidate: true)).get()
        #expect(revalidated.source == .revalidated)
        #expect(revalidated.bytesDownloaded == 0)
        #expect(fixture.server.requestCount(for: "/a.png") == 2)
    }

    @Test("fetch: each failure is one clear line naming the URL")
    func fetchErrors() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let fixture = try await Fixture.start()
        defer { Task { await fixture.tearDown() } }
        let fetcher = try fixture.fetcher()

        func message(_ input: String, offline: Bool = false) async -> String? {
            if case .failure(let error) = await fetcher.fetch(input, options: .init(offline: offline)) { return error.description }
            return nil
        }
        #expect(await message(fixture.url("/missing.png")) == "\(fixture.url("/missing.png")): the server answered HTTP 404")
        #expect(await message(fixture.url("/page.html")) == "\(fixture.url("/page.html")): not an image (Content-Type: text/html)")
        #expect(await message("not a url") == "invalid URL 'not a url': expected http://, https:// or file://")
        #expect(await message("ftp://example.com/a.png") == "invalid URL 'ftp://example.com/a.png': unsupported scheme 'ftp' (use http, https or file)")
        #expect(await message(fixture.url("/b.jpg"), offline: true) == "\(fixture.url("/b.jpg")): not in the cache (offline)")

        // A host that refuses connections: the port of a server that has stopped.
        let gone = try await LoopbackServer.start()
        let goneURL = gone.url("/a.png").absoluteString
        await gone.shutdown()
        let unreachable = try #require(await message(goneURL))
        #expect(unreachable.hasPrefix(goneURL + ": "))
        #expect(!unreachable.contains("\n"))
    }

    @Test("prefetch: warms the cache, skips invalid lines and duplicates, and resumes without requests")
    func prefetchResumes() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let fixture = try await Fixture.start()
        defer { Task { await fixture.tearDown() } }
        let list = URLList(text: """
        # feed
        \(fixture.url("/a.png"))
        \(fixture.url("/b.jpg"))

        \(fixture.url("/a.png"))
        nonsense
        \(fixture.url("/missing.png"))
        """)
        #expect(list.urls.count == 3)
        #expect(list.duplicateCount == 1)
        #expect(list.invalidLines.map(\.lineNumber) == [6])

        let first = await CachePrefetcher(pipeline: try ToolPipeline.make(cacheDirectory: fixture.directory, diskLimit: 10_000_000, timeout: 5), concurrency: 2)
            .prefetch(list.urls)
        #expect(first.total == 3)
        #expect(first.downloaded == 2)
        #expect(first.alreadyCached == 0)
        #expect(first.failures == ["\(fixture.url("/missing.png")): the server answered HTTP 404"])
        let requestsAfterFirst = fixture.server.totalRequestCount

        // Run again (a new process): cached URLs are skipped without a request.
        let second = await CachePrefetcher(pipeline: try ToolPipeline.make(cacheDirectory: fixture.directory, diskLimit: 10_000_000, timeout: 5), concurrency: 2)
            .prefetch(list.urls)
        #expect(second.alreadyCached == 2)
        #expect(second.downloaded == 0)
        #expect(fixture.server.totalRequestCount == requestsAfterFirst + 1)  // Only the 404 again.
        #expect(PrefetchCommand.summaryLine(second, invalidLines: 1).hasPrefix("Prefetched: 3 URLs, 0 downloaded (0 B), 2 already cached, 1 failed, 1 invalid lines"))
    }

    @Test("stats: entries, sizes, types and staleness of the cache directory")
    func stats() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let fixture = try await Fixture.start()
        defer { Task { await fixture.tearDown() } }
        let fetcher = try fixture.fetcher()
        var bytes = 0
        for path in ["/a.png", "/b.jpg", "/c.jpg"] {
            bytes += try await fetcher.fetch(fixture.url(path), options: .init()).get().byteCount
        }
        fetcher.finish()

        let now = Date()
        let inventory = try CacheInventory.read(directory: fixture.directory, now: now)
        #expect(inventory.entries == 3)
        #expect(inventory.imageBytes == bytes)
        #expect(inventory.fileBytes > bytes)
        #expect(inventory.staleEntries == 0)
        #expect(inventory.byContentType.map(\.contentType).sorted() == ["image/jpeg", "image/png"])
        #expect(inventory.byContentType.first { $0.contentType == "image/jpeg" }?.entries == 2)
        let newest = try #require(inventory.newestStored)
        #expect(abs(newest.timeIntervalSince(now)) < 60)

        // Two hours later the max-age=60 PNG is stale; a day and more later, all are
        // (c.jpg has no lifetime: the 7-day heuristic applies).
        #expect(try CacheInventory.read(directory: fixture.directory, now: now + 7_200).staleEntries == 1)
        #expect(try CacheInventory.read(directory: fixture.directory, now: now + 8 * 86_400).staleEntries == 3)
        #expect(inventory.render(now: now).contains("Entries:  3 ("))
    }

    @Test("clear: --stale-only keeps fresh entries; clear removes the rest and nothing else")
    func clear() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let fixture = try await Fixture.start()
        defer { Task { await fixture.tearDown() } }
        let fetcher = try fixture.fetcher()
        for path in ["/a.png", "/b.jpg", "/c.jpg"] {
            _ = try await fetcher.fetch(fixture.url(path), options: .init()).get()
        }
        fetcher.finish()
        let bystander = fixture.directory.appendingPathComponent("notes.txt")
        try Data("mine".utf8).write(to: bystander)

        let stale = try CacheCleaner.clear(directory: fixture.directory, staleOnly: true, now: Date() + 7_200)
        #expect(stale.removedEntries == 1)
        #expect(stale.remainingEntries == 2)
        #expect(try CacheInventory.read(directory: fixture.directory).entries == 2)

        let all = try CacheCleaner.clear(directory: fixture.directory, staleOnly: false)
        #expect(all.removedEntries == 2)
        #expect(all.remainingEntries == 0)
        #expect(try CacheInventory.read(directory: fixture.directory).entries == 0)
        #expect(FileManager.default.fileExists(atPath: bystander.path))
    }

    @Test("stats and clear refuse a directory that does not exist, without creating it")
    func missingDirectory() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("cachedimage-missing-\(UUID().uuidString)")
        #expect(throws: CLIError("no cache at \(missing.path)")) { try CacheInventory.read(directory: missing) }
        #expect(throws: CLIError("no cache at \(missing.path)")) { try CacheCleaner.clear(directory: missing, staleOnly: false) }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test("Every command has help that names its options")
    func help() {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let root = CachedImageCommand.helpMessage()
        for name in ["demo", "fetch", "prefetch", "stats", "clear"] {
            #expect(root.contains(name))
        }
        #expect(CachedImageCommand.helpMessage(for: DemoCommand.self).contains("--trace-length"))
        #expect(CachedImageCommand.helpMessage(for: FetchCommand.self).contains("--cache"))
        #expect(CachedImageCommand.helpMessage(for: PrefetchCommand.self).contains("--concurrency"))
        #expect(CachedImageCommand.helpMessage(for: StatsCommand.self).contains("--json"))
        #expect(CachedImageCommand.helpMessage(for: ClearCommand.self).contains("--stale-only"))
    }
}
