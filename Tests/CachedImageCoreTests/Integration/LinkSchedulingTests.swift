import Foundation
import Testing
import ImageFixtures
@testable import LoopbackServer
@testable import CachedImageCore

/// Issue 51 on a real loopback server behind an emulated link (one downlink shared by every
/// connection, a delay each way): on a slow link images complete one after another in the
/// order they were asked for, visible first, prefetches once the screen is done; on a fast one
/// nothing is held back. The pipeline's link clock is the real monotonic one; the tests assert
/// orders and counts, never durations.
@Suite("Pipeline: downloads follow the link", .timeLimit(.minutes(1)))
struct LinkSchedulingTests {
    /// Throughput-bound: 800 kbit/s, 100 ms each way (a round trip carries 20 KB).
    static let slowLink = LinkProfile(name: "slow", downlinkBitsPerSecond: 800_000, delayMilliseconds: 100)
    /// Latency-bound: 8 Mbit/s, 250 ms each way (a round trip carries 500 KB, four of the images).
    static let farLink = LinkProfile(name: "far", downlinkBitsPerSecond: 8_000_000, delayMilliseconds: 250)

    /// `count` photo-sized PNGs (random pixels: 57,600 bytes of pixels each) at `/<prefix><i>.png`,
    /// resumable (strong ETag, byte ranges).
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    private func serve(_ fixture: PipelineFixture, _ prefix: String, count: Int, seed: UInt64) -> [URL] {
        (0..<count).map { index in
            let path = "/\(prefix)\(index).png"
            fixture.server.serve(path, ResumptionFixture.response(ImageFixtures.png(width: 160, height: 120, seed: seed + UInt64(index))))
            return fixture.url(path)
        }
    }

    @Test("throughput-bound: two at a time, the screen in the order asked, prefetches after it; all complete")
    func throughputBoundFollowsVisibility() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let fixture = try await PipelineFixture.start()
        // 800 kbit/s, 200 ms round trip (3G-like): a round trip carries 20 KB, an image is 58 KB.
        // Round trips and windows long against a busy machine's scheduling delays.
        fixture.server.setLink(Self.slowLink)
        let pipeline = fixture.makePipeline()
        let screen = serve(fixture, "screen", count: 6, seed: 100)
        let prefetch = serve(fixture, "prefetch", count: 2, seed: 200)
        let completed = Locked<[String]>([])
        let received = Locked<[String: Int64]>([:])
        var tasks: [ImageTask] = []
        // The prefetches are asked first: visibility, not arrival, orders the screen before them.
        for url in prefetch + screen {
            let name = url.lastPathComponent
            let task = pipeline.imageTask(
                with: ImageRequest(url: url, priority: url.lastPathComponent.hasPrefix("prefetch") ? .low : .normal),
                progress: { bytes, _ in received.withLock { $0[name] = bytes } }
            )
            tasks.append(task)
            Task {
                _ = try? await task.response
                let lastReceived = received.withLock { $0[screen[5].lastPathComponent] ?? 0 }
                completed.withLock { $0.append(name + (name == screen[0].lastPathComponent ? "@\(lastReceived)" : "")) }
            }
        }
        for task in tasks { _ = try await task.response }
        #expect(await eventually { completed.withLock { $0.count } == 8 })
        let order = completed.withLock { $0 }
        let first = try #require(order.first { $0.hasPrefix("screen0") })
        let lastOfScreenAtFirst = Int(first.split(separator: "@").last ?? "") ?? .max
        #expect(lastOfScreenAtFirst < 28_800, "the screen's last image had less than half its bytes when its first completed: \(order)")
        let names = order.map { String($0.split(separator: "@").first ?? "") }
        #expect(names.suffix(2).allSatisfy { $0.hasPrefix("prefetch") }, "prefetches complete once the screen is done: \(names)")
        #expect(pipeline.link.limit == 2, "measured as throughput-bound")
        await fixture.tearDown()
    }

    @Test("throughput-bound: revalidations run beside the downloads holding the link (a 304 is not an image)")
    func revalidationsAreNotSerialised() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let fixture = try await PipelineFixture.start()
        let pipeline = fixture.makePipeline()
        // Four small images in the cache, stale at once (max-age=0): asking again sends If-None-Match.
        let stale = (0..<4).map { index in
            let path = "/stale\(index).png"
            fixture.servePNG(path, seed: 400 + UInt64(index), headers: ["ETag": "\"s\(index)\"", "Cache-Control": "max-age=0"])
            return fixture.url(path)
        }
        for url in stale { _ = try await pipeline.image(for: url) }
        fixture.server.setLink(Self.slowLink)
        let downloads = serve(fixture, "photo", count: 4, seed: 500)
        let completed = Locked<[String]>([])
        let photos = downloads.map { url in
            Task {
                _ = try await pipeline.image(for: url)
                completed.withLock { $0.append(url.lastPathComponent) }
            }
        }
        #expect(await eventually({ pipeline.link.limit == 2 }, rounds: 10_000_000), "measured as throughput-bound")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for url in stale {
                group.addTask {
                    _ = try await pipeline.image(for: url)
                    completed.withLock { $0.append(url.lastPathComponent) }
                }
            }
            try await group.waitForAll()
        }
        for photo in photos { try await photo.value }
        let order = completed.withLock { $0 }
        #expect(order.prefix(4).allSatisfy { $0.hasPrefix("stale") }, "every revalidation answered before a photo completed: \(order)")
        #expect(stale.allSatisfy { fixture.server.requests(for: $0.path).last?.header("If-None-Match") != nil }, "asked with validators")
        await fixture.tearDown()
    }

    @Test("latency-bound: measured, and nothing held back or paused")
    func latencyBoundKeepsTheMaximum() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let fixture = try await PipelineFixture.start()
        // A round trip carries 500 KB, four of these images; 24 take 2.8 s: measured (two windows
        // of a round trip) while the queue still starts the second twelve.
        fixture.server.setLink(Self.farLink)
        let pipeline = fixture.makePipeline()
        let images = (0..<24).map { index in
            let path = "/big\(index).png"
            fixture.server.serve(path, ResumptionFixture.response(ImageFixtures.png(width: 240, height: 160, seed: 300 + UInt64(index))))
            return fixture.url(path)
        }
        let requestsAtCompletion = Locked<[Int]>([])
        let requestsBefore = fixture.server.totalRequestCount
        try await withThrowingTaskGroup(of: Void.self) { group in
            for url in images {
                group.addTask {
                    _ = try await pipeline.image(for: url)
                    requestsAtCompletion.withLock { $0.append(fixture.server.totalRequestCount - requestsBefore) }
                }
            }
            try await group.waitForAll()
        }
        #expect(pipeline.link.gauge.capacity != nil, "the link was measured")
        #expect(images.allSatisfy { fixture.server.requestCount(for: $0.path) == 1 }, "none stepped aside")
        // The first twelve end together; the second twelve then all start at once (the queue's
        // maximum), not a measured few at a time.
        let seen = requestsAtCompletion.withLock { $0 }
        #expect(seen.count == 24 && seen[12] == 24, "every request sent before the second dozen's first completed: \(seen)")
        #expect(pipeline.link.gauge.concurrency(maximum: 12) != nil)
        await fixture.tearDown()
    }
}
