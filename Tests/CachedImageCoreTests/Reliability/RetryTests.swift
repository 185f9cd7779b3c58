import Foundation
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

@Suite("Reliability: transient failures are retried with bounded backoff; permanent ones are not")
struct RetryTests {
    @available(macOS 14.0, *)
    private func makePipeline(
        _ fixture: PipelineFixture,
        _ sleeper: RecordingSleeper,
        maximumRetries: Int = 3,
        maximumDelay: TimeInterval = 10
    ) -> ImagePipeline {
        fixture.makePipeline {
            $0.retryPolicy = .init(maximumRetries: maximumRetries, initialDelay: 0.5, backoffMultiplier: 2, maximumDelay: maximumDelay, sleep: sleeper.sleep)
        }
    }

    @Test("retries are off by default")
    @available(macOS 14.0, *)
    func offByDefault() async throws {
        #expect(ImagePipeline.Configuration().retryPolicy.maximumRetries == 0)
        let fixture = try await PipelineFixture.start()
        fixture.server.serve("/busy.png", .unavailable())
        let pipeline = fixture.makePipeline()
        await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(for: fixture.url("/busy.png")) }
        #expect(fixture.server.requestCount(for: "/busy.png") == 1)
        await fixture.tearDown()
    }

    @Test("two 503s then the image: three requests, exponential delays, the image cached")
    @available(macOS 14.0, *)
    func recoversAfterTransientFailures() async throws {
        let fixture = try await PipelineFixture.start()
        let png = ImageFixtures.png(width: 30, height: 20, seed: 3)
        fixture.server.serveSequence("/flaky.png", [.unavailable(), .unavailable(status: 500), .ok(png, contentType: "image/png")])
        let sleeper = RecordingSleeper()
        let pipeline = makePipeline(fixture, sleeper)
        let url = fixture.url("/flaky.png")

        let response = try await pipeline.image(for: url)
        #expect(response.image.data == png)
        #expect(fixture.server.requestCount(for: "/flaky.png") == 3)
        #expect(sleeper.recorded == [0.5, 1.0])
        ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: png)
        await fixture.tearDown()
    }

    @Test("Retry-After in seconds or as an HTTP date replaces the computed delay")
    @available(macOS 14.0, *)
    func honoursRetryAfter() async throws {
        let fixture = try await PipelineFixture.start()
        let png = ImageFixtures.png(width: 30, height: 20, seed: 4)
        let date = HTTPDate.format(fixture.clock.now.addingTimeInterval(7))
        fixture.server.serveSequence("/later.png", [
            .unavailable(retryAfter: "3"),
            .unavailable(status: 429, retryAfter: date),
            .ok(png, contentType: "image/png"),
        ])
        let sleeper = RecordingSleeper()
        let pipeline = makePipeline(fixture, sleeper)
        let response = try await pipeline.image(for: fixture.url("/later.png"))
        #expect(response.image.data == png)
        #expect(sleeper.recorded == [3, 7])
        await fixture.tearDown()
    }

    @Test("an HTTP-date Retry-After counts from the response's Date, not from a device clock that is off")
    @available(macOS 14.0, *)
    func retryAfterDateCountsFromTheServersDate() async throws {
        let fixture = try await PipelineFixture.start()
        let png = ImageFixtures.png(width: 30, height: 20, seed: 5)
        // The server's clock is an hour behind the device's.
        let serverNow = fixture.clock.now.addingTimeInterval(-3_600)
        var busy = LoopbackResponse.unavailable(retryAfter: HTTPDate.format(serverNow.addingTimeInterval(4)))
        busy.headers["Date"] = HTTPDate.format(serverNow)
        fixture.server.serveSequence("/skewed.png", [busy, .ok(png, contentType: "image/png")])
        let sleeper = RecordingSleeper()
        let pipeline = makePipeline(fixture, sleeper)
        #expect(try await pipeline.image(for: fixture.url("/skewed.png")).image.data == png)
        #expect(sleeper.recorded == [4])
        await fixture.tearDown()
    }

    @Test("a Retry-After longer than the cap gives up at once instead of asking early")
    @available(macOS 14.0, *)
    func retryAfterBeyondCapGivesUp() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.server.serve("/tomorrow.png", .unavailable(retryAfter: "86400"))
        let sleeper = RecordingSleeper()
        let pipeline = makePipeline(fixture, sleeper, maximumDelay: 30)
        await #expect {
            try await pipeline.image(for: fixture.url("/tomorrow.png"))
        } throws: { error in
            guard case .badStatusCode(_, 503) = error as? ImagePipeline.Error else { return false }
            return true
        }
        #expect(fixture.server.requestCount(for: "/tomorrow.png") == 1)
        #expect(sleeper.recorded.isEmpty)
        await fixture.tearDown()
    }

    @Test("a failure that persists is tried 1 + maximumRetries times with capped delays, then reported")
    @available(macOS 14.0, *)
    func boundedAttempts() async throws {
        let fixture = try await PipelineFixture.start()
        let png = ImageFixtures.png(width: 100, height: 100, seed: 5)
        fixture.server.serve("/cut.png", .resetMidBody(png, contentType: "image/png", after: 200))
        let sleeper = RecordingSleeper()
        let pipeline = makePipeline(fixture, sleeper, maximumRetries: 4, maximumDelay: 2)
        let url = fixture.url("/cut.png")
        await #expect {
            try await pipeline.image(for: url)
        } throws: { error in
            (error as? ImagePipeline.Error)?.isTransient == true
        }
        #expect(fixture.server.requestCount(for: "/cut.png") == 5)
        #expect(sleeper.recorded == [0.5, 1, 2, 2])
        ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: nil)
        await fixture.tearDown()
    }

    @Test("a refused connection is retried, then reported as a transport error")
    @available(macOS 14.0, *)
    func transportErrorsAreRetried() async throws {
        let fixture = try await PipelineFixture.start()
        await fixture.server.shutdown()
        // Not the server's port: another test's server may take it as soon as it is free.
        let refusing = try RefusingPort()
        let url = refusing.url("/gone.png")
        let sleeper = RecordingSleeper()
        let pipeline = makePipeline(fixture, sleeper, maximumRetries: 2)
        await #expect {
            try await pipeline.image(for: url)
        } throws: { error in
            guard case .transport = error as? ImagePipeline.Error else { return false }
            return true
        }
        #expect(sleeper.recorded == [0.5, 1])
        #expect(pipeline.statistics.networkRequests == 3)
        withExtendedLifetime(refusing) {}
        try? FileManager.default.removeItem(at: fixture.directory)
    }

    @Test("permanent failures are never retried", arguments: ["/404.png", "/html.png", "/bomb.png"])
    @available(macOS 14.0, *)
    func permanentFailuresAreNotRetried(_ path: String) async throws {
        let fixture = try await PipelineFixture.start()
        switch path {
        case "/html.png":
            fixture.server.serve(path, .ok(Data("<html></html>".utf8), contentType: "image/png"))
        case "/bomb.png":
            fixture.server.serve(path, .ok(ImageFixtures.pngHeader(width: 20_000, height: 20_000), contentType: "image/png"))
        default:
            break  // unknown paths answer 404
        }
        let sleeper = RecordingSleeper()
        let pipeline = makePipeline(fixture, sleeper)
        await #expect {
            try await pipeline.image(for: fixture.url(path))
        } throws: { error in
            (error as? ImagePipeline.Error)?.isTransient == false
        }
        #expect(fixture.server.requestCount(for: path) == 1)
        #expect(sleeper.recorded.isEmpty)
        await fixture.tearDown()
    }

    @Test("cancelling a request while it waits to retry ends it at once with CancellationError")
    @available(macOS 14.0, *)
    func cancelDuringBackoff() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.server.serve("/busy.png", .unavailable())
        let waiting = Gate()
        let pipeline = fixture.makePipeline {
            $0.retryPolicy = .init(maximumRetries: 5, initialDelay: 3600, maximumDelay: 3600) { seconds in
                waiting.open()
                try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            }
        }
        let task = Task { try await pipeline.image(for: fixture.url("/busy.png")) }
        await waiting.wait()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(fixture.server.requestCount(for: "/busy.png") == 1)
        await fixture.tearDown()
    }

    @Test("a stale entry whose revalidation keeps failing is retried, then served stale (within stale-if-error)")
    @available(macOS 14.0, *)
    func staleAfterRetries() async throws {
        let fixture = try await PipelineFixture.start()
        let png = ImageFixtures.png(width: 30, height: 20, seed: 6)
        fixture.server.serve("/s.png", .ok(png, contentType: "image/png", headers: ["Cache-Control": "max-age=10, stale-if-error=3600", "ETag": "\"a\""]))
        let sleeper = RecordingSleeper()
        let url = fixture.url("/s.png")
        _ = try await makePipeline(fixture, sleeper, maximumRetries: 2).image(for: url)
        fixture.clock.advance(by: 60)
        fixture.server.serve("/s.png", .unavailable())
        let relaunched = makePipeline(fixture, sleeper, maximumRetries: 2)
        let response = try await relaunched.image(for: url)
        #expect(response.source == .disk)
        #expect(response.image.data == png)
        #expect(fixture.server.requestCount(for: "/s.png") == 4)
        #expect(sleeper.recorded == [0.5, 1])
        await fixture.tearDown()
    }

    @Test("delays grow by the multiplier up to the cap; Retry-After parses seconds and dates")
    func delayArithmetic() {
        let policy = ImagePipeline.RetryPolicy(maximumRetries: 5, initialDelay: 1, backoffMultiplier: 3, maximumDelay: 20)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect((1...6).map { policy.delay(beforeRetry: $0, retryAfter: nil, now: now) } == [1, 3, 9, 20, 20, nil])
        #expect(policy.delay(beforeRetry: 1, retryAfter: "12", now: now) == 12)
        #expect(policy.delay(beforeRetry: 1, retryAfter: "21", now: now) == nil)
        #expect(policy.delay(beforeRetry: 1, retryAfter: "soon", now: now) == 1)
        // Longer than an Int holds: give up, as for any wait past the cap.
        #expect(policy.delay(beforeRetry: 1, retryAfter: "99999999999999999999", now: now) == nil)
        // Not delay-seconds (1*DIGIT) nor a date: ignored.
        #expect(policy.delay(beforeRetry: 1, retryAfter: "+5", now: now) == 1)
        #expect(policy.delay(beforeRetry: 1, retryAfter: "-5", now: now) == 1)
        #expect(policy.delay(beforeRetry: 1, retryAfter: HTTPDate.format(now.addingTimeInterval(-50)), now: now) == 0)
        #expect(ImagePipeline.RetryPolicy.disabled.delay(beforeRetry: 1, retryAfter: nil, now: now) == nil)
    }
}
