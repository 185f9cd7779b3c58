import Foundation
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

/// The load/soak test: 16 tasks issue mixed requests (memory hits, disk hits, misses,
/// revalidations, cancellations, priority changes) against the loopback server for a while, under Thread
/// Sanitizer when run by `scripts/soak.sh`. Off unless `CACHEDIMAGE_SOAK=1`;
/// `CACHEDIMAGE_SOAK_SECONDS` (default 30) and `CACHEDIMAGE_SOAK_REQUESTS` (default 50,000) bound it.
@Suite("Reliability: soak under load", .enabled(if: ProcessInfo.processInfo.environment["CACHEDIMAGE_SOAK"] == "1"))
struct SoakTests {
    static let taskCount = 16
    static let imageCount = 400
    /// Holds roughly 40 of the 400 decoded images, so the hot set competes with the cold ones.
    static let memoryLimit = 300_000
    static let diskLimit = 600_000

    struct Tally: Sendable {
        var completed = 0
        var cancelled = 0
        var reprioritised = 0
        var wrongBytes = 0
        var failures: [String] = []

        static func + (lhs: Tally, rhs: Tally) -> Tally {
            Tally(
                completed: lhs.completed + rhs.completed,
                cancelled: lhs.cancelled + rhs.cancelled,
                reprioritised: lhs.reprioritised + rhs.reprioritised,
                wrongBytes: lhs.wrongBytes + rhs.wrongBytes,
                failures: lhs.failures + rhs.failures.prefix(5)
            )
        }
    }

    @Test("16 tasks of mixed requests: no wrong bytes, caches within their limits")
    @available(macOS 14.0, *)
    func soak() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["CACHEDIMAGE_SOAK_SECONDS"].flatMap(Double.init) ?? 30
        let requestBudget = environment["CACHEDIMAGE_SOAK_REQUESTS"].flatMap(Int.init) ?? 50_000

        let fixture = try await PipelineFixture.start()
        var checksums: [UInt64] = []
        var largestEntry = 0
        for slot in 0..<Self.imageCount {
            let body = ImageFixtures.versionedPNG(slot: slot, version: 1)
            checksums.append(FastChecksum.checksum([UInt8](body)))
            largestEntry = max(largestEntry, body.count)
            // Some images have a short lifetime, so revalidations (304s) happen too.
            let headers = slot % 5 == 0 ? ["Cache-Control": "max-age=0", "ETag": "\"\(slot)\""] : ["Cache-Control": "max-age=86400"]
            fixture.server.serve("/img/\(slot).png", LoopbackResponse(
                headers: headers.merging(["Content-Type": "image/png"]) { $1 },
                body: body,
                latency: slot % 7 == 0 ? .milliseconds(2) : .zero
            ))
        }
        let pipeline = fixture.makePipeline {
            $0.memoryCacheCostLimit = Self.memoryLimit
            $0.diskCacheSizeLimit = Self.diskLimit
            $0.clock = SystemClock()
        }
        let expected = checksums
        let server = fixture.server
        let issued = Locked(0)
        let deadline = Date().addingTimeInterval(seconds)
        let stop = Locked(false)
        let limitViolations = Locked<[String]>([])
        // Header bytes of an entry file are small; allow one entry's worth of slack on disk.
        let diskSlack = largestEntry + 4096

        let monitor = Task {
            var samples = 0
            while !stop.withLock({ $0 }) {
                if let memory = pipeline.memoryCache, memory.totalCost > memory.costLimit {
                    limitViolations.withLock { $0.append("memory cost \(memory.totalCost) > \(memory.costLimit)") }
                }
                if let disk = pipeline.diskCache, disk.totalSize > disk.sizeLimit + diskSlack {
                    limitViolations.withLock { $0.append("disk size \(disk.totalSize) > \(disk.sizeLimit) + \(diskSlack)") }
                }
                samples += 1
                try? await Task.sleep(nanoseconds: 1_000_000)
            }
            return samples
        }

        let started = Date()
        let tally = try await withThrowingTaskGroup(of: Tally.self) { group in
            for worker in 0..<Self.taskCount {
                group.addTask {
                    var tally = Tally()
                    var random = SplitMix(seed: UInt64(worker) &* 0x9E37_79B9 &+ 1)
                    while Date() < deadline, issued.withLock({ count in
                        guard count < requestBudget else { return false }
                        count += 1
                        return true
                    }) {
                        // Skewed towards a hot set, so memory and disk hits mix with misses.
                        let hot = random.next(100) < 70
                        let slot = hot ? random.next(24) : random.next(Self.imageCount)
                        let action = random.next(100)
                        var options: ImageRequest.Options = []
                        if (30..<40).contains(action) {
                            options = [.skipMemoryCache]  // straight to the disk cache
                        } else if (40..<45).contains(action) {
                            options = [.reloadRevalidatingCacheData]  // conditional GETs, 304s
                        }
                        let request = ImageRequest(url: server.url("/img/\(slot).png"), priority: .normal, options: options)
                        let task = pipeline.imageTask(with: request)
                        if action < 15 {
                            // Cancel at once or after a few scheduling rounds.
                            for _ in 0..<random.next(4) { await Task.yield() }
                            task.cancel()
                        } else if action < 30 {
                            await Task.yield()
                            task.setPriority(random.next(2) == 0 ? .veryHigh : .low)
                            tally.reprioritised += 1
                        }
                        do {
                            let response = try await task.response
                            tally.completed += 1
                            let bytes = response.image.data.map { [UInt8]($0) } ?? []
                            if FastChecksum.checksum(bytes) != expected[slot] { tally.wrongBytes += 1 }
                        } catch is CancellationError {
                            tally.cancelled += 1
                        } catch {
                            if tally.failures.count < 5 { tally.failures.append("\(slot): \(error)") }
                        }
                    }
                    return tally
                }
            }
            return try await group.reduce(Tally(), +)
        }
        let elapsed = Date().timeIntervalSince(started)
        stop.withLock { $0 = true }
        let samples = await monitor.value
        pipeline.diskCache?.flush()

        let statistics = pipeline.statistics
        print(
            """
            soak: \(tally.completed + tally.cancelled + tally.failures.count) requests in \(String(format: "%.1f", elapsed)) s \
            by \(Self.taskCount) tasks: \(tally.completed) completed and checksummed, \(tally.cancelled) cancelled, \
            \(tally.reprioritised) reprioritised, \(tally.wrongBytes) wrong, \(tally.failures.count) failed; \
            memory hits \(statistics.memoryHits), disk hits \(statistics.diskHits), network \(statistics.networkRequests) \
            (304s \(statistics.notModifiedResponses)), server saw \(server.totalRequestCount); \(samples) limit samples, \
            \(limitViolations.withLock { $0.count }) violations
            """
        )
        #expect(tally.wrongBytes == 0)
        #expect(tally.failures.isEmpty, "\(tally.failures)")
        #expect(tally.completed > 0)
        #expect(tally.cancelled > 0)
        #expect(limitViolations.withLock { $0 }.isEmpty, "\(limitViolations.withLock { $0.prefix(5) })")
        #expect((pipeline.memoryCache?.totalCost ?? 0) <= Self.memoryLimit)
        #expect((pipeline.diskCache?.totalSize ?? 0) <= Self.diskLimit)
        #expect(pipeline.diskCache?.totalSize == ReliabilityChecks.sizeOfEntryFiles(in: fixture.directory))
        await fixture.tearDown()
    }
}

/// A small deterministic generator, one per worker.
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// A value in `0..<bound`.
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(z % UInt64(bound))
    }
}
