import Foundation
import Testing
import ImageFixtures
@testable import CachedImageCore

@Suite("Pipeline: loading, coalescing, relaunch")
struct PipelineLoadingTests {
    @Test("100 concurrent identical requests make exactly one network request and one decode")
    func coalescesIdenticalRequests() async throws {
        try await withScriptedFixture { fixture throws in
            let png = fixture.servePNG("/a.png")
            let gate = Gate()
            fixture.server.serve("/a.png") { _ in
                await gate.wait()
                return .ok(png, contentType: "image/png")
            }
            let decoder = CountingDecoder()
            let pipeline = fixture.makePipeline { $0.decoder = decoder }
            let request = ImageRequest(url: fixture.url("/a.png"))

            let all = Task {
                try await withThrowingTaskGroup(of: ImageResponse.self) { group in
                    for _ in 0..<100 {
                        group.addTask { try await pipeline.image(for: request) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            // Every request has joined the one download before it answers.
            #expect(await eventually { pipeline.statistics.coalescedRequests == 99 })
            gate.open()
            let responses = try await all.value

            #expect(responses.count == 100)
            #expect(fixture.server.requestCount(for: "/a.png") == 1)
            #expect(pipeline.statistics.networkRequests == 1)
            #expect(decoder.decodeCount == 1)
            #expect(responses.allSatisfy { $0.image.pixelSize == PixelSize(width: 64, height: 48) })
            #expect(responses.filter { $0.source == .network }.count >= 1)
            #expect(responses.filter { $0.metrics.isCoalesced || $0.source == .memory }.count == 99)
        }
    }

    @Test("a relaunched pipeline on the same directory serves every image from disk, with no network")
    func relaunchServesFromDisk() async throws {
        try await withScriptedFixture { fixture throws in
            var bodies: [String: Data] = [:]
            for index in 0..<20 {
                bodies["/\(index).png"] = fixture.servePNG("/\(index).png", seed: UInt64(index))
            }
            let firstLaunch = fixture.makePipeline()
            for path in bodies.keys {
                let response = try await firstLaunch.image(for: fixture.url(path))
                #expect(response.source == .network)
            }
            firstLaunch.diskCache?.flush()
            #expect(fixture.server.totalRequestCount == 20)

            let secondLaunch = fixture.makePipeline()
            #expect(secondLaunch.diskCache?.entryCount == 20)
            for (path, body) in bodies {
                let response = try await secondLaunch.image(for: fixture.url(path))
                #expect(response.source == .disk)
                #expect(response.image.data == body)
            }
            #expect(fixture.server.totalRequestCount == 20)
            #expect(secondLaunch.statistics.networkRequests == 0)
            #expect(secondLaunch.statistics.diskHits == 20)
        }
    }

    @Test("a memory hit is synchronous; the decoded image is keyed by target size")
    func memoryHitAndTargetSizes() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/big.png", width: 400, height: 200)
            let decoder = CountingDecoder()
            let pipeline = fixture.makePipeline { $0.decoder = decoder }
            let full = ImageRequest(url: fixture.url("/big.png"))
            // Fit: inside 100x100 (fill, the default, would decode 200x100).
            let thumbnail = ImageRequest(url: fixture.url("/big.png"), targetPixelSize: PixelSize(width: 100, height: 100), contentMode: .aspectFit)

            #expect(pipeline.memoryCachedImage(for: full) == nil)
            async let fullResponse = pipeline.image(for: full)
            async let thumbnailResponse = pipeline.image(for: thumbnail)
            let (large, small) = try await (fullResponse, thumbnailResponse)

            #expect(large.image.pixelSize == PixelSize(width: 400, height: 200))
            #expect(small.image.pixelSize == PixelSize(width: 100, height: 50))
            #expect(small.image.cost < large.image.cost)
            // One download shared by both sizes; one decode per size.
            #expect(fixture.server.requestCount(for: "/big.png") == 1)
            #expect(Set(decoder.targetSizes) == [nil, PixelSize(width: 100, height: 100)])
            #expect(decoder.decodeCount == 2)
            #expect(pipeline.memoryCachedImage(for: full)?.pixelSize == PixelSize(width: 400, height: 200))
            #expect(pipeline.memoryCachedImage(for: thumbnail)?.pixelSize == PixelSize(width: 100, height: 50))
            #expect(try await pipeline.image(for: thumbnail).source == .memory)
        }
    }

    @Test("cancelling one of two subscribers does not cancel the shared download")
    func cancellingOneSubscriberKeepsDownload() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/slow.png", until: gate)
            let pipeline = fixture.makePipeline()
            let request = ImageRequest(url: fixture.url("/slow.png"))

            let leaving = pipeline.imageTask(with: request)
            let staying = pipeline.imageTask(with: request)
            #expect(await eventually { fixture.server.requestCount(for: "/slow.png") == 1 })
            leaving.cancel()

            await #expect(throws: CancellationError.self) { try await leaving.response }
            gate.open()
            let response = try await staying.response
            #expect(response.source == .network)
            #expect(fixture.server.requestCount(for: "/slow.png") == 1)
            #expect(pipeline.statistics.cancellations == 1)
        }
    }

    @Test("cancelling the only subscriber cancels the download and stores nothing")
    func cancellingLastSubscriberCancelsDownload() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/slow.png", until: gate)
            let pipeline = fixture.makePipeline()
            let task = pipeline.imageTask(with: ImageRequest(url: fixture.url("/slow.png")))
            #expect(await eventually { fixture.server.requestCount(for: "/slow.png") == 1 })
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.response }
            gate.open() // the cancelled load sees its cancellation once the server answers
            pipeline.diskCache?.flush()
            #expect(pipeline.diskCache?.entryCount == 0)
            #expect(pipeline.statistics.bytesDownloaded == 0)
        }
    }

    @Test("queued downloads start highest priority first, following priority changes")
    func priorityOrdersQueuedDownloads() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/blocker.png", until: gate)
            for name in ["low", "normal", "high", "raised"] {
                fixture.servePNG("/\(name).png")
            }
            let pipeline = fixture.makePipeline { $0.maximumConcurrentDownloads = 1 }
            let blocker = pipeline.imageTask(with: ImageRequest(url: fixture.url("/blocker.png")))
            #expect(await eventually { fixture.server.requestCount(for: "/blocker.png") == 1 })

            let low = pipeline.imageTask(with: ImageRequest(url: fixture.url("/low.png"), priority: .low))
            let normal = pipeline.imageTask(with: ImageRequest(url: fixture.url("/normal.png"), priority: .normal))
            let high = pipeline.imageTask(with: ImageRequest(url: fixture.url("/high.png"), priority: .high))
            let raised = pipeline.imageTask(with: ImageRequest(url: fixture.url("/raised.png"), priority: .veryLow))
            raised.setPriority(.veryHigh)
            #expect(await eventually { pipeline.queuedDownloadCount == 4 })
            gate.open()

            for task in [blocker, low, normal, high, raised] {
                _ = try await task.response
            }
            let order = fixture.server.allRequests.map(\.path)
            #expect(order == ["/blocker.png", "/raised.png", "/high.png", "/normal.png", "/low.png"])
        }
    }

    @Test("a priority change reaches the running download, down when off screen and up again")
    func priorityReachesTheRunningDownload() async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            fixture.serveHeldPNG("/cell.png", until: gate)
            let pipeline = fixture.makePipeline()
            let task = pipeline.imageTask(with: ImageRequest(url: fixture.url("/cell.png"), priority: .high))
            #expect(await eventually { fixture.server.requestCount(for: "/cell.png") == 1 })
            #expect(fixture.server.loadPriorities(for: "/cell.png") == [.high])

            task.setPriority(.low)  // the cell scrolled off screen while its image downloads
            #expect(await eventually { fixture.server.loadPriorities(for: "/cell.png") == [.high, .low] })
            task.setPriority(.veryHigh)  // and came back
            #expect(await eventually { fixture.server.loadPriorities(for: "/cell.png") == [.high, .low, .veryHigh] })

            gate.open()
            _ = try await task.response
            #expect(fixture.server.loadPriorities(for: "/cell.png") == [.high, .low, .veryHigh])
        }
    }

    @Test("progress is reported monotonically up to the body size")
    func reportsProgress() async throws {
        try await withScriptedFixture { fixture throws in
            let png = ImageFixtures.png(width: 300, height: 300, seed: 3)
            fixture.server.serve("/p.png", ScriptedResponse(headers: ["Content-Type": "image/png"], body: png, chunkSize: 16_384))
            let pipeline = fixture.makePipeline()
            let seen = Recorder<Int64>()
            let task = pipeline.imageTask(with: ImageRequest(url: fixture.url("/p.png"))) { received, _ in
                seen.append(received)
            }
            _ = try await task.response
            let values = seen.values
            #expect(values.count > 1)
            #expect(values == values.sorted())
            #expect(values.last == Int64(png.count))
        }
    }

    @Test("events describe a request from start to finish")
    func emitsEvents() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/e.png")
            let pipeline = fixture.makePipeline()
            let events = pipeline.events()
            let response = try await pipeline.image(for: fixture.url("/e.png"))
            #expect(response.source == .network)

            var names: [String] = []
            for await event in events {
                switch event {
                case .taskStarted: names.append("started")
                case .networkRequest(_, let isConditional): names.append(isConditional ? "conditional" : "network")
                case .taskCompleted(_, _, let source, _): names.append("completed-\(source)")
                default: names.append("other")
                }
                if names.count == 3 { break }
            }
            #expect(names == ["started", "network", "completed-network"])
        }
    }

    @Test("removing an image from the caches makes the next load download it again")
    func removeCachedImage() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/r.png")
            let pipeline = fixture.makePipeline()
            let request = ImageRequest(url: fixture.url("/r.png"))
            let fit = ImageRequest(url: fixture.url("/r.png"), targetPixelSize: PixelSize(width: 8, height: 8), contentMode: .aspectFit)
            _ = try await pipeline.image(for: request)
            _ = try await pipeline.image(for: fit)
            pipeline.removeCachedImage(for: request)
            #expect(pipeline.memoryCachedImage(for: request) == nil)
            #expect(pipeline.memoryCachedImage(for: fit) == nil, "every size goes, not only the request's")
            #expect(try await pipeline.image(for: request).source == .network)
            #expect(fixture.server.requestCount(for: "/r.png") == 2)
        }
    }
}
