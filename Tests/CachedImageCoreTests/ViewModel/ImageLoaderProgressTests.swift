import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import ImageFixtures
@_spi(Testing) @testable import CachedImageCore

/// Download progress reaches the view coalesced on the main actor and throttled on the
/// injected clock: at most 30 updates a second, the latest value always delivered.
@Suite("ImageLoader: throttled progress", .timeLimit(.minutes(1)))
@MainActor
struct ImageLoaderProgressTests {
    /// A `DataLoading` that sends `body` in `chunks` pieces, moving the clock `step` seconds
    /// before each, then holds the response until `finish` opens.
    final class SteppedLoader: DataLoading {
        let body: Data
        let chunks: Int
        let step: TimeInterval
        let clock: ManualClock
        let finish = Gate()
        let sent = Locked(0)

        init(body: Data, chunks: Int, step: TimeInterval, clock: ManualClock) {
            self.body = body
            self.chunks = chunks
            self.step = step
            self.clock = clock
        }

        func loadData(for request: URLRequest, progress: @escaping @Sendable (Int64, Int64?) -> Void) async throws -> (Data, URLResponse) {
            let total = Int64(body.count)
            // Start once the main actor is free: the load has published its `.loading` state at
            // the clock's current time (the clock is moved only here, from this thread).
            await MainActor.run {}
            for chunk in 1...chunks {
                clock.advance(by: step)
                progress(total * Int64(chunk) / Int64(chunks), total)
                sent.withLock { $0 = chunk }
                // Let the main actor take the chunk in (its hop was queued before this).
                await MainActor.run {}
                await MainActor.run {}
            }
            await finish.wait()
            let response = HTTPURLResponse(
                url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "image/png", "Content-Length": "\(body.count)"]
            )!
            return (body, response)
        }
    }

    /// Published progress with the clock's time of each update.
    private struct Update {
        var completed: Int64
        var total: Int64?
        var date: Date
    }

    @Test("a 2 MB image in 64 chunks: at most 30 updates a second, each moving forward, the last one delivered")
    func throttled() async throws {
        try await withScriptedFixture { fixture throws in
            // 1024x680 of noise: about 2 MB that does not compress.
            let png = ImageFixtures.png(width: 1024, height: 680, seed: 9)
            #expect(png.count > 2_000_000)
            let source = SteppedLoader(body: png, chunks: 64, step: 0.01, clock: fixture.clock)
            let pipeline = ImagePipeline.forTests(directory: fixture.directory, clock: fixture.clock, dataLoader: source) { _ in }
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: pipeline, scheduler: scheduler)
            var updates: [Update] = []
            var successes = 0
            loader.onChange = { phase in
                if let progress = phase.progress {
                    updates.append(Update(completed: progress.completed, total: progress.total, date: fixture.clock.now))
                }
                if phase.response != nil { successes += 1 }
            }
            loader.load(ImageRequest(url: fixture.url("/large.png")))

            // Let the chunks arrive, running the throttle's timers as the clock moves.
            for _ in 0..<100_000 where source.sent.withLock({ $0 }) < 64 || updates.last?.completed != Int64(png.count) {
                if source.sent.withLock({ $0 }) == 64 {
                    scheduler.advance(by: 0.01) // the download stalls; time goes on
                } else {
                    scheduler.endTurn()
                }
                await Task.yield()
            }
            #expect(updates.last?.completed == Int64(png.count), "the last progress (all bytes) is delivered while the response is held")
            #expect(updates.last?.total == Int64(png.count))
            let ticks = Array(updates.dropFirst()) // the first is the load's own .loading(0)
            #expect(ticks.count >= 2, "a stalled download still shows progress")
            #expect(ticks.count < 64, "chunks are coalesced: \(ticks.count) updates for 64 chunks")
            #expect(zip(updates, updates.dropFirst()).allSatisfy { $0.completed < $1.completed }, "only forward")
            for (index, update) in updates.enumerated() {
                let window = updates[index...].prefix { $0.date.timeIntervalSince(update.date) < 1 }
                #expect(window.count <= 30, "\(window.count) updates within one second")
            }
            #expect(zip(updates, updates.dropFirst()).allSatisfy { $1.date.timeIntervalSince($0.date) >= 1.0 / 30 - 1e-9 })

            source.finish.open()
            await loader.settle()
            #expect(successes == 1)
            #expect(loader.phase.response != nil)
        }
    }

    @Test("with reportsProgress off, a chunked download publishes only .loading and then .success")
    func progressOff() async throws {
        try await withScriptedFixture { fixture throws in
            let png = ImageFixtures.png(width: 256, height: 256, seed: 3)
            fixture.server.serve("/large.png", ScriptedResponse(headers: ["Content-Type": "image/png"], body: png, chunkSize: 4_096))
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), scheduler: scheduler)
            loader.reportsProgress = false
            let recorder = PhaseRecorder(loader)
            loader.load(ImageRequest(url: fixture.url("/large.png")))
            await recorder.wait { $0.successPath != nil }
            scheduler.advance(by: 1)
            await loader.settle()
            #expect(recorder.seen == [.loading(completed: 0, total: nil), .success(path: "/large.png", source: .network)])
        }
    }
}
