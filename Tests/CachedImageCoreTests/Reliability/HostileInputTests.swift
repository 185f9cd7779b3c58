import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

/// Numbers a server or another process controls, fed through the entry points the pipeline
/// uses: each used to trap the process (or hang it); now each is a typed error, a miss or an
/// ignored field.
@Suite("Reliability: hostile numbers in HTTP fields and cache files never trap or hang")
struct HostileInputTests {
    @Test("a Retry-After of 10^20 seconds under a maxDelay of .infinity waits (cancellably) instead of trapping")
    @available(macOS 14.0, *)
    func hugeRetryAfterDoesNotTrap() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.server.serve("/later.png", .unavailable(retryAfter: "99999999999999999999"))
        let asked = Locked<[TimeInterval]>([])
        let pipeline = fixture.makePipeline {
            // The default sleep, behind a probe that says when it is reached.
            $0.retryPolicy = .init(maxRetries: 1, maxDelay: .infinity) { seconds in
                asked.withLock { $0.append(seconds) }
                try await ImagePipeline.RetryPolicy.taskSleep(seconds)
            }
        }
        let task = Task { try await pipeline.image(for: fixture.url("/later.png")) }
        while asked.withLock({ $0.isEmpty }) { try await Task.sleep(nanoseconds: 1_000_000) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(asked.withLock { $0 } == [1e20])
        #expect(fixture.server.requestCount(for: "/later.png") == 1)
        await fixture.tearDown()
    }

    @Test("sleeps too long, infinite or NaN are clamped to what Task.sleep takes")
    func sleepDurationsAreClamped() {
        typealias Policy = ImagePipeline.RetryPolicy
        let century = UInt64(Policy.longestSleep * 1e9)
        #expect(Policy.nanoseconds(sleeping: 1.5) == 1_500_000_000)
        #expect(Policy.nanoseconds(sleeping: 1e20) == century)
        #expect(Policy.nanoseconds(sleeping: .infinity) == century)
        #expect(Policy.nanoseconds(sleeping: .nan) == 0)
        #expect(Policy.nanoseconds(sleeping: -.infinity) == 0)
        // A delay-seconds too long for any integer still parses (a long wait, not "no header").
        let digits = String(repeating: "9", count: 400)
        #expect(Policy.seconds(fromRetryAfter: digits, now: Date()) == .infinity)
        #expect(Policy(maxRetries: 1, maxDelay: .infinity).delay(beforeRetry: 1, retryAfter: digits, now: Date()) == .infinity)
    }
}
