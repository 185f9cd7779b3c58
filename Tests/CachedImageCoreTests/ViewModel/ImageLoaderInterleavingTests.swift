import Foundation
import Testing
import ImageFixtures
@_spi(Testing) @testable import CachedImageCore

/// Property tests: `ImageLoader` under seeded random interleavings of what SwiftUI may call
/// (`phase(for:)`, `onAppear`, `onDisappear`, `.task`'s `load`), the end of main-actor turns,
/// time passing, and the server answering. Whatever the order:
/// - without `retry()`, a request key is requested at most once, plus once per return of the
///   view after its load was cancelled or its image let go off screen;
/// - a `.failure` is followed by `.loading` only when a transient failure's view returns after
///   its grace period (``FailureRecovery``'s rule): never for a `404`, never on a quick return;
/// - a view on screen is never left cancelled, let go, or at a lowered priority.
@Suite("ImageLoader: random callback orders", .timeLimit(.minutes(2)))
@MainActor
struct ImageLoaderInterleavingTests {
    enum Outcome: String, CaseIterable, Sendable {
        case success, notFound, droppedConnection
    }

    enum Operation: CaseIterable {
        case render, appear, disappear, load, complete, endTurn, passTime
    }

    nonisolated static let behaviors: [OffscreenBehavior] = [.automatic, .cancel, .lowerPriority(to: .low)]

    @Test("invariants hold for 25 seeds of 60 operations", arguments: behaviors, Outcome.allCases)
    func randomInterleavings(behavior: OffscreenBehavior, outcome: Outcome) async throws {
        for seed in UInt64(1)...25 {
            try await run(seed: seed, behavior: behavior, outcome: outcome, operations: 60)
        }
    }

    private func run(seed: UInt64, behavior: OffscreenBehavior, outcome: Outcome, operations: Int) async throws {
        try await withScriptedFixture { fixture throws in
            let gate = Gate()
            let png = ImageFixtures.png(width: 16, height: 16, seed: seed)
            fixture.server.serve("/image.png") { _ in
                await gate.wait()
                switch outcome {
                case .success: return .ok(png, contentType: "image/png")
                case .notFound: return .status(404)
                case .droppedConnection: return .transportFailure()
                }
            }
            let scheduler = ManualScheduler(clock: fixture.clock)
            let loader = ImageLoader(pipeline: fixture.makePipeline(), offscreenBehavior: behavior, scheduler: scheduler)
            let request = ImageRequest(url: fixture.url("/image.png"), priority: .high)
            var seen: [PhaseRecorder.Seen] = []
            loader.onChange = { seen.append(PhaseRecorder.Seen($0)) }
            var random = SeededRandom(seed: seed)
            var allowedRequests = 1
            var staleReturns = 0
            var trace: [Operation] = []

            for _ in 0..<operations {
                let operation = Operation.allCases[random.next(below: Operation.allCases.count)]
                trace.append(operation)
                switch operation {
                case .render:
                    _ = loader.phase(for: request)
                case .appear:
                    let wasLetGo = loader.pause == .suspended || loader.pause == .released
                    let wasStaleFailure = loader.failureIsStale
                    loader.didAppear()
                    if wasLetGo, loader.isOnScreen { allowedRequests += 1 } // a genuinely new appearance
                    if wasStaleFailure, loader.isOnScreen {
                        allowedRequests += 1 // a transient failure asked again on a return past the grace period
                        staleReturns += 1
                    }
                case .disappear:
                    loader.didDisappear()
                case .load:
                    loader.load(request)
                case .complete:
                    gate.open()
                    _ = await eventuallyOnMain { !loader.phase.isLoading }
                case .endTurn:
                    scheduler.endTurn()
                case .passTime:
                    scheduler.advance(by: Double(random.next(below: 1_000)) / 1_000)
                }
                let context = "seed \(seed), \(behavior), \(outcome): \(trace)"
                if loader.isOnScreen, loader.request != nil {
                    #expect(loader.pause != .suspended && loader.pause != .released, "on screen but let go; \(context)")
                    if let task = loader.task {
                        #expect(task.priority == .high, "on screen at a lowered priority; \(context)")
                    }
                }
                #expect(fixture.server.requestCount(for: "/image.png") <= allowedRequests, "\(context)")
            }
            gate.open()
            await loader.settle()
            let context = "seed \(seed), \(behavior), \(outcome): \(trace)"
            #expect(fixture.server.requestCount(for: "/image.png") <= allowedRequests, "\(context)")
            let askedAgain = zip(seen, seen.dropFirst()).filter { $0.isFailure && $1.isLoading }.count
            #expect(askedAgain <= staleReturns, "failure then loading: \(seen); \(context)")
            if outcome == .notFound { #expect(askedAgain == 0, "a 404 is never asked again; \(context)") }
        }
    }
}
