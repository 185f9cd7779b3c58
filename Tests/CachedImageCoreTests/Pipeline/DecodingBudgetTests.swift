import Dispatch
import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// A semaphore-held decode body: decoding threads block on it until the test lets them go.
private final class Hold: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func wait() { semaphore.wait() }
    func release(_ count: Int = 1) { for _ in 0..<count { semaphore.signal() } }
}

/// Counts the decodes running at once (the header decoder's result, each image expensive).
private final class ConcurrencyCountingDecoder: ImageDecoding {
    private let state = Locked((running: 0, peak: 0))
    var peak: Int { state.withLock { $0.peak } }

    func isExpensive(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) -> Bool { true }

    func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
        state.withLock { $0.running += 1; $0.peak = max($0.peak, $0.running) }
        defer { state.withLock { $0.running -= 1 } }
        // Long enough for the others to pile up if the budget let them in.
        Thread.sleep(forTimeInterval: 0.01)
        return try HeaderImageDecoder().decode(data, info: info, targetPixelSize: targetSize)
    }
}

@Suite("Memory budget: decodes admitted by bytes, one entry's share of the memory cache", .timeLimit(.minutes(1)))
struct DecodingBudgetTests {
    @Test("decodes start while their bytes fit the budget; the rest wait, first come first served")
    func admissionByBytes() async throws {
        let queue = DecodingQueue(budget: 100)
        let hold = Hold()
        let order = Recorder<Int>()
        let tasks = (0..<3).map { index in
            Task {
                try await queue.run(bytes: 60) {
                    order.append(index)
                    hold.wait()
                }
            }
            // Each run is admitted or queued before the next starts.
        }
        #expect(await eventually { queue.runningCount + queue.waitingCount == 3 })
        #expect(queue.runningCount == 1, "60 + 60 bytes exceed the 100-byte budget")
        #expect(queue.bytesInFlight == 60)
        hold.release(3)
        for task in tasks { try await task.value }
        #expect(queue.peakBytesInFlight == 60)
        #expect(queue.bytesInFlight == 0 && queue.runningCount == 0)
    }

    @Test("small decodes run side by side; one larger than the whole budget runs alone")
    func largeDecodeRunsAlone() async throws {
        let queue = DecodingQueue(budget: 100)
        let hold = Hold()
        let small = (0..<2).map { _ in Task { try await queue.run(bytes: 40) { hold.wait() } } }
        #expect(await eventually { queue.runningCount == 2 })
        let huge = Task { try await queue.run(bytes: 500) { hold.wait() } }
        #expect(await eventually { queue.waitingCount == 1 })
        #expect(queue.runningCount == 2)
        hold.release(2)
        for task in small { try await task.value }
        #expect(await eventually { queue.runningCount == 1 })
        #expect(queue.bytesInFlight == 500)
        hold.release()
        try await huge.value
        #expect(queue.peakBytesInFlight == 500)
    }

    @Test("a decode cancelled while it waits leaves the line and never runs")
    func cancelledWaiterLeaves() async throws {
        let queue = DecodingQueue(budget: 100)
        let hold = Hold()
        let ran = Recorder<String>()
        let first = Task { try await queue.run(bytes: 80) { ran.append("first"); hold.wait() } }
        #expect(await eventually { queue.runningCount == 1 })
        let second = Task { try await queue.run(bytes: 80) { ran.append("second") } }
        #expect(await eventually { queue.waitingCount == 1 })
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        #expect(queue.waitingCount == 0)
        hold.release()
        try await first.value
        #expect(ran.values == ["first"])
    }

    @Test("the pipeline's decodes stay within decodingMemoryBudget, counted from header size and target")
    func pipelineBudget() async throws {
        try await withScriptedFixture { fixture throws in
            for index in 0..<4 {
                fixture.servePNG("/\(index).png", width: 64, height: 48, seed: UInt64(index + 1))
            }
            let decoder = ConcurrencyCountingDecoder()
            // Room for two 32x24 decodes (3,072 bytes each), not three.
            let pipeline = fixture.makePipeline {
                $0.decoder = decoder
                $0.decodingMemoryBudget = 2 * 32 * 24 * 4
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        let request = ImageRequest(url: fixture.url("/\(index).png"), targetPixelSize: PixelSize(width: 32, height: 24))
                        _ = try await pipeline.image(for: request)
                    }
                }
                try await group.waitForAll()
            }
            #expect(decoder.peak <= 2)
            #expect(pipeline.jobs.decodingQueue.peakBytesInFlight <= 2 * 32 * 24 * 4)
            #expect(pipeline.memoryCache?.count == 4)
        }
    }

    @Test("an HDR decode is admitted by 8 bytes a pixel, an SDR one by 4")
    func hdrAdmission() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/photo.png", width: 64, height: 48)
            let pipeline = fixture.makePipeline { $0.decoder = ConcurrencyCountingDecoder() }
            let target = PixelSize(width: 32, height: 24)
            _ = try await pipeline.image(for: ImageRequest(url: fixture.url("/photo.png"), targetPixelSize: target))
            #expect(pipeline.jobs.decodingQueue.peakBytesInFlight == 32 * 24 * 4)
            _ = try await pipeline.image(for: ImageRequest(url: fixture.url("/photo.png"), targetPixelSize: target, options: [.decodeToHDR]))
            #expect(pipeline.jobs.decodingQueue.peakBytesInFlight == 32 * 24 * 8)
        }
    }

    @Test("one memory-cache entry takes at most its share of the cache: a larger image is delivered, not kept")
    func perEntryShare() async throws {
        let cache = MemoryCache<String, Int>(costLimit: 1_000)
        cache.maximumEntryCostShare = 0.1
        cache.setValue(1, forKey: "fits", cost: 100)
        cache.setValue(2, forKey: "big", cost: 50)
        cache.setValue(3, forKey: "big", cost: 101)
        #expect(cache.value(forKey: "fits") == 1)
        #expect(cache.value(forKey: "big") == nil, "the over-share value is not kept, nor the old one")
        #expect(cache.totalCost == 100)

        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/large.png", width: 64, height: 48)
            fixture.servePNG("/small.png", width: 16, height: 16, seed: 2)
            // 64x48x4 = 12,288 bytes: above 10% of 100,000; 16x16x4 = 1,024 is below.
            let pipeline = fixture.makePipeline { $0.memoryCacheCostLimit = 100_000 }
            #expect(pipeline.memoryCache?.maximumEntryCostShare == 0.1, "the default share")
            let large = ImageRequest(url: fixture.url("/large.png"))
            let small = ImageRequest(url: fixture.url("/small.png"))
            #expect(try await pipeline.image(for: large).image.pixelSize == PixelSize(width: 64, height: 48))
            #expect(try await pipeline.image(for: small).source == .network)
            #expect(pipeline.memoryCachedImage(for: large) == nil)
            #expect(pipeline.memoryCachedImage(for: small) != nil)
            let roomy = fixture.makePipeline {
                $0.memoryCacheCostLimit = 100_000
                $0.memoryCacheMaximumEntryShare = 0.5
            }
            _ = try await roomy.image(for: large)
            #expect(roomy.memoryCachedImage(for: large) != nil)
        }
    }
}
