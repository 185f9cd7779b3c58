import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import LoopbackServer
@testable import CachedImageCore

/// Collects progress callbacks from the loader's delegate queue.
private final class ProgressRecorder: Sendable {
    private let events = Locked<[(received: Int64, expected: Int64?)]>([])

    var all: [(received: Int64, expected: Int64?)] {
        events.withLock { $0 }
    }

    func record(_ received: Int64, _ expected: Int64?) {
        events.withLock { $0.append((received, expected)) }
    }
}

private func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
    Data((0 ..< count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
}

private func get(
    _ loader: URLSessionDataLoader,
    _ url: URL,
    headers: [String: String] = [:],
    progress: @escaping @Sendable (Int64, Int64?) -> Void = { _, _ in }
) async throws -> (Data, HTTPURLResponse) {
    var request = URLRequest(url: url)
    for (name, value) in headers {
        request.setValue(value, forHTTPHeaderField: name)
    }
    let (data, response) = try await loader.loadData(for: request, progress: progress)
    let http = try #require(response as? HTTPURLResponse)
    return (data, http)
}

/// Waits (bounded) until `condition` holds; used to know a request reached the server.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
private func waitUntil(_ condition: () -> Bool) async throws {
    for _ in 0 ..< 1_000 where !condition() {
        try await Task.sleep(for: .milliseconds(5))
    }
}

@Suite("URLSessionDataLoader against the loopback LoopbackServer")
struct URLSessionDataLoaderTests {
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func defaultConfigurationNeverCaches() {
        let configuration = URLSessionDataLoader.defaultConfiguration
        #expect(configuration.urlCache == nil)
        #expect(configuration.requestCachePolicy == .reloadIgnoringLocalCacheData)
        #expect(configuration.httpMaximumConnectionsPerHost >= ImagePipeline.Configuration().maximumConcurrentDownloads)
        #expect(configuration.timeoutIntervalForRequest == 30)

        let custom = URLSessionConfiguration.default
        custom.urlCache = URLCache(memoryCapacity: 1_000_000, diskCapacity: 0, diskPath: nil)
        custom.requestCachePolicy = .returnCacheDataElseLoad
        let loader = URLSessionDataLoader(configuration: custom)
        #expect(loader.session.configuration.urlCache == nil)
        #expect(loader.session.configuration.requestCachePolicy == .reloadIgnoringLocalCacheData)
        #expect(custom.urlCache != nil, "the caller's configuration is not mutated")
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func okResponseReturnsBodyAndMonotonicProgress() async throws {
        let server = try await LoopbackServer.start()
        let body = bytes(50_000)
        server.serve("/a.png", LoopbackResponse(headers: ["Content-Type": "image/png"], body: body, chunkSize: 8_192))
        let loader = URLSessionDataLoader()
        let recorder = ProgressRecorder()

        let (data, response) = try await get(loader, server.url("/a.png"), progress: recorder.record)

        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "image/png")
        #expect(data == body)
        let events = recorder.all
        #expect(events.count > 1, "chunked delivery yields several callbacks")
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.received < $1.received })
        #expect(events.last?.received == Int64(body.count))
        #expect(events.allSatisfy { $0.expected == Int64(body.count) })
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func eachLoadReachesTheServerEvenWhenCacheable() async throws {
        let server = try await LoopbackServer.start()
        server.serve("/fresh.png", .ok(bytes(100), headers: ["Cache-Control": "public, max-age=3600"]))
        let loader = URLSessionDataLoader()

        _ = try await get(loader, server.url("/fresh.png"))
        _ = try await get(loader, server.url("/fresh.png"))

        #expect(server.requestCount(for: "/fresh.png") == 2, "no URLCache answers in the pipeline's place")
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test(arguments: [404, 410, 500, 503])
    func nonSuccessStatusIsReturnedNotThrown(status: Int) async throws {
        let server = try await LoopbackServer.start()
        server.serve("/bad.png", .status(status, body: Data("nope".utf8)))
        let loader = URLSessionDataLoader()

        let (data, response) = try await get(loader, server.url("/bad.png"))

        #expect(response.statusCode == status)
        #expect(data == Data("nope".utf8))
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func unknownPathIs404() async throws {
        let server = try await LoopbackServer.start()
        let (_, response) = try await get(URLSessionDataLoader(), server.url("/missing.png"))
        #expect(response.statusCode == 404)
        #expect(server.requestCount(for: "/missing.png") == 1)
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func matchingIfNoneMatchGets304WithoutBody() async throws {
        let server = try await LoopbackServer.start()
        let headers = ["ETag": "\"v1\"", "Cache-Control": "max-age=60", "Content-Type": "image/png"]
        server.serve("/e.png", .ok(bytes(5_000), headers: headers))
        let loader = URLSessionDataLoader()

        let (data, response) = try await get(loader, server.url("/e.png"), headers: ["If-None-Match": "\"v1\""])

        #expect(response.statusCode == 304)
        #expect(data.isEmpty)
        #expect(response.value(forHTTPHeaderField: "ETag") == "\"v1\"")
        #expect(response.value(forHTTPHeaderField: "Cache-Control") == "max-age=60")
        #expect(server.requests(for: "/e.png").last?.header("if-none-match") == "\"v1\"")
        #expect(server.bytesSent == 0)

        let (fresh, changed) = try await get(loader, server.url("/e.png"), headers: ["If-None-Match": "\"v0\""])
        #expect(changed.statusCode == 200)
        #expect(fresh.count == 5_000)
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func ifModifiedSinceAgainstLastModified() async throws {
        let server = try await LoopbackServer.start()
        server.serve("/m.png", .ok(bytes(10), headers: ["Last-Modified": "Tue, 15 Nov 1994 12:45:26 GMT"]))
        let loader = URLSessionDataLoader()

        let (_, same) = try await get(loader, server.url("/m.png"), headers: ["If-Modified-Since": "Tue, 15 Nov 1994 12:45:26 GMT"])
        let (_, later) = try await get(loader, server.url("/m.png"), headers: ["If-Modified-Since": "Wed, 16 Nov 1994 00:00:00 GMT"])
        let (_, earlier) = try await get(loader, server.url("/m.png"), headers: ["If-Modified-Since": "Mon, 14 Nov 1994 00:00:00 GMT"])

        #expect(same.statusCode == 304)
        #expect(later.statusCode == 304)
        #expect(earlier.statusCode == 200)
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func serverIgnoringValidatorsSends200() async throws {
        let server = try await LoopbackServer.start()
        var response = LoopbackResponse.ok(bytes(10), headers: ["ETag": "\"v1\""])
        response.honorsConditionalRequests = false
        server.serve("/i.png", response)

        let (data, http) = try await get(URLSessionDataLoader(), server.url("/i.png"), headers: ["If-None-Match": "\"v1\""])

        #expect(http.statusCode == 200)
        #expect(data.count == 10)
        await server.shutdown()
    }

    /// Linux URLSession (swift-corelibs-foundation over libcurl) FAILS a response whose body is
    /// shorter than its Content-Length: the load throws `URLError(.unknown)` (code -1, described
    /// as "transfer closed with N bytes remaining to read") after reporting the partial progress,
    /// and never returns a short body; the loader turns that into `truncatedResponse`. (The
    /// pipeline also checks `data.count` against `expectedContentLength` for custom loaders.)
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test(arguments: [0, 1_000, 19_999])
    func truncatedBodyIsNeverReturnedAsComplete(sentBytes: Int) async throws {
        let server = try await LoopbackServer.start()
        let body = bytes(20_000)
        server.serve("/t.png", .ok(body, truncatedAfter: sentBytes))
        let recorder = ProgressRecorder()

        // Linux URLSession fails the transfer ("transfer closed with N bytes remaining"); the
        // loader reports it precisely, with what arrived and what was promised.
        await #expect {
            _ = try await get(URLSessionDataLoader(), server.url("/t.png"), progress: recorder.record)
        } throws: { error in
            guard case .truncatedResponse(let url, let received, let expected) = error as? ImagePipeline.Error else { return false }
            return url == server.url("/t.png") && received == sentBytes && expected == body.count
        }
        #expect(recorder.all.allSatisfy { $0.received <= Int64(sentBytes) })
        #expect(server.bytesSent == sentBytes)
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func cancellingTheCallerCancelsTheRequest() async throws {
        let server = try await LoopbackServer.start()
        server.serve("/slow.png", .ok(bytes(1_000), latency: .seconds(60)))
        let loader = URLSessionDataLoader()
        let url = server.url("/slow.png")

        let task = Task { try await get(loader, url) }
        try await waitUntil { server.requestCount(for: "/slow.png") == 1 }
        #expect(server.requestCount(for: "/slow.png") == 1)
        task.cancel()
        let result = await task.result

        #expect(throws: CancellationError.self) { try result.get() }
        #expect(server.bytesSent == 0, "the caller gave up long before the server answered")
        await server.shutdown()
    }

    /// corelibs Foundation traps when a redirect callback is answered after its task was
    /// cancelled; the callback waits on the delegate queue, which one slow progress handler holds.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func cancellingWhileARedirectWaitsForItsAnswer() async throws {
        let server = try await LoopbackServer.start()
        server.serve("/first.png", .ok(bytes(1_000)))
        server.serve("/r", .redirect(to: "/final.png"))
        server.serve("/final.png", .ok(bytes(10)))
        let loader = URLSessionDataLoader()
        let holding = Locked(false)
        let first = Task {
            try await get(loader, server.url("/first.png")) { _, _ in
                // The first progress callback holds the delegate queue for a second.
                if holding.withLock({ held in defer { held = true }; return !held }) { Thread.sleep(forTimeInterval: 1) }
            }
        }
        try await waitUntil { holding.withLock { $0 } }
        let redirected = Task { try await get(loader, server.url("/r")) }
        try await waitUntil { server.requestCount(for: "/r") == 1 }
        try await Task.sleep(for: .milliseconds(100)) // the 302 arrives; its callback waits in the queue
        redirected.cancel()
        // Cancelled (on a machine slow enough, the redirect may have been answered and followed
        // before the cancellation: then it succeeds). Either way the process is still here.
        if case .failure(let error) = await redirected.result {
            #expect(error is CancellationError)
        }
        _ = try await first.value
        // And the loader still loads.
        let (data, _) = try await get(loader, server.url("/final.png"))
        #expect(data == bytes(10))
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func cancelledBeforeStartSendsNothing() async throws {
        let server = try await LoopbackServer.start()
        server.serve("/never.png", .ok(bytes(10)))
        server.serve("/after.png", .ok(bytes(10)))
        let loader = URLSessionDataLoader()
        let url = server.url("/never.png")

        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await get(loader, url)
        }
        let result = await task.result
        _ = try await get(loader, server.url("/after.png"))

        #expect(throws: CancellationError.self) { try result.get() }
        #expect(server.requestCount(for: "/never.png") == 0)
        #expect(server.requestCount(for: "/after.png") == 1)
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func countsRequestsAndBytes() async throws {
        let server = try await LoopbackServer.start()
        server.serve("/a.png", .ok(bytes(300)))
        server.serve("/b.png", .ok(bytes(200)))
        let loader = URLSessionDataLoader()

        for _ in 0 ..< 3 {
            _ = try await get(loader, server.url("/a.png"))
        }
        _ = try await get(loader, server.url("/b.png?size=small"))
        _ = try await get(loader, server.url("/nothing"))

        #expect(server.requestCount(for: "/a.png") == 3)
        #expect(server.requestCount(for: "/b.png") == 1)
        #expect(server.requests(for: "/b.png").first?.query == "size=small")
        #expect(server.requests(for: "/a.png").allSatisfy { $0.method == "GET" })
        #expect(server.totalRequestCount == 5)
        #expect(server.bytesSent == 3 * 300 + 200 + "Not Found".utf8.count)

        server.resetCounters()
        #expect(server.totalRequestCount == 0)
        #expect(server.bytesSent == 0)
        #expect(server.requests(for: "/a.png").isEmpty)
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func handlerRouteSeesTheRequest() async throws {
        let server = try await LoopbackServer.start()
        server.serve("/echo") { request in
            .ok(Data((request.header("X-Token") ?? "none").utf8))
        }
        let (data, response) = try await get(URLSessionDataLoader(), server.url("/echo"), headers: ["X-Token": "abc"])
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "abc")
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func latencyDelaysTheResponse() async throws {
        let server = try await LoopbackServer.start()
        server.serve("/late.png", .ok(bytes(10), latency: .milliseconds(300)))
        let clock = ContinuousClock()
        let start = clock.now
        let (_, response) = try await get(URLSessionDataLoader(), server.url("/late.png"))
        let elapsed = clock.now - start
        #expect(response.statusCode == 200)
        #expect(elapsed >= .milliseconds(300), "the server waits at least the latency")
        await server.shutdown()
    }

    /// 200 sequential 50 KB GETs on one loader: every one reaches the server, whole.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func sequentialRequestsAllReachTheServer() async throws {
        let server = try await LoopbackServer.start()
        let body = bytes(50 * 1_024)
        server.serve("/bulk.png", .ok(body, contentType: "image/png"))
        let loader = URLSessionDataLoader()
        _ = try await get(loader, server.url("/bulk.png"))  // warm the connection
        server.resetCounters()

        var total = 0
        for index in 0 ..< 200 {
            let (data, _) = try await get(loader, server.url("/bulk.png?i=\(index)"))
            total += data.count
        }

        #expect(total == 200 * body.count)
        #expect(server.requestCount(for: "/bulk.png") == 200)
        #expect(server.bytesSent == 200 * body.count)
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test("the running URLSessionTask's priority follows the load's priority")
    func runningTaskFollowsPriority() async throws {
        let server = try await LoopbackServer.start()
        let gate = Gate()
        let body = bytes(2_000)
        server.serve("/held.png") { _ in
            await gate.wait()
            return .ok(body, contentType: "image/png")
        }
        let loader = URLSessionDataLoader()
        let priority = DataLoadPriority(.low)
        let load = Task {
            try await loader.load(URLRequest(url: server.url("/held.png")), limits: DataLoadLimits(), priority: priority) { _, _ in }
        }
        try await waitUntil { server.requestCount(for: "/held.png") == 1 }
        // Started at the priority it was given...
        #expect(await runningTaskPriorities(of: loader) == [URLSessionTask.lowPriority])
        // ...raised while running (a view came back on screen)...
        priority.update(.veryHigh)
        #expect(await runningTaskPriorities(of: loader) == [URLSessionTask.highPriority])
        // ...and lowered again (it scrolled off).
        priority.update(.normal)
        #expect(await runningTaskPriorities(of: loader) == [URLSessionTask.defaultPriority])
        priority.update(.veryLow)
        #expect(await runningTaskPriorities(of: loader) == [URLSessionTask.lowPriority])

        gate.open()
        let response = try await load.value
        #expect(response.data == body)
        priority.update(.high)  // after the load: nothing to reprioritise, nothing breaks
        #expect(await runningTaskPriorities(of: loader).isEmpty)
        await server.shutdown()
    }

    @Test("priority levels map to URLSessionTask's low, default and high priorities")
    func priorityMapping() {
        #expect(ImageRequest.Priority.allCases.map(\.urlSessionTaskPriority) == [
            URLSessionTask.lowPriority, URLSessionTask.lowPriority, URLSessionTask.defaultPriority,
            URLSessionTask.highPriority, URLSessionTask.highPriority,
        ])
    }
}

/// The priorities of the loader's session's running tasks.
private func runningTaskPriorities(of loader: URLSessionDataLoader) async -> [Float] {
    await withCheckedContinuation { continuation in
        loader.session.getAllTasks { tasks in
            continuation.resume(returning: tasks.filter { $0.state == .running }.map(\.priority))
        }
    }
}
