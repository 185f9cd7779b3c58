import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// The player core behind `CachedAnimatedImage` and `CachedAnimatedImageView`, driven the way
/// UIKit and SwiftUI drive it, over a scripted server, a manual clock and frame sources whose
/// frames are their indices.
@Suite("Animation: the player (lifecycle orders, memory, one fetch)", .timeLimit(.minutes(1)))
@MainActor
struct AnimationPlayerTests {
    /// Three frames of 100 ms.
    private let gif = ImageFixtures.animatedGIF(width: 8, height: 8, delays: [10, 10, 10], loopCount: 0)

    private func makePlayer(_ clock: ManualUptimeClock, _ factory: FakeSourceFactory) -> AnimationPlayer<FakeFrameSource> {
        AnimationPlayer(clock: clock, makeSource: { factory.make($0, $1) })
    }

    /// A player on screen that played one frame change of `/a.gif`: the whole 3-frame loop is
    /// buffered, frame 1 on screen, the loop sleeping.
    private func playedFullyBuffered(_ fixture: ScriptedFixture, _ pipeline: ImagePipeline, _ clock: ManualUptimeClock) async -> AnimationPlayer<FakeFrameSource> {
        let player = makePlayer(clock, FakeSourceFactory())
        player.setVisible(true)
        player.load(serveGIF(fixture, "/a.gif"), pipeline: pipeline)
        #expect(await waitUntilSleeping(clock))
        clock.advance(by: 0.1)
        #expect(await waitUntil(player) { player.displayedFrame == 1 })
        #expect(await waitUntilSleeping(clock))
        #expect(player.bufferedFrames == [0, 1, 2])
        return player
    }

    private func serveGIF(_ fixture: ScriptedFixture, _ path: String, _ data: Data? = nil, headers: [String: String] = [:]) -> ImageRequest {
        fixture.server.serve(path, .ok(data ?? gif, contentType: "image/gif", headers: headers))
        return ImageRequest(url: fixture.url(path))
    }

    /// Waits until the players' loops rest in their sleep (frame shown, next one prefetched).
    private func waitUntilSleeping(_ clock: ManualUptimeClock, count: Int = 1) async -> Bool {
        await clock.waitForSleepers(count)
        return clock.sleeperCount == count
    }

    private func hasFrames(_ player: AnimationPlayer<FakeFrameSource>) -> Bool {
        player.playback.animation != nil
    }

    @Test("set before attached to a window: the image loads while detached, stays on its first frame, and plays once attached")
    func setBeforeAttached() async throws {
        try await withScriptedFixture { fixture in
            let pipeline = fixture.makePipeline()
            let clock = ManualUptimeClock()
            let factory = FakeSourceFactory()
            let player = makePlayer(clock, factory)
            player.load(serveGIF(fixture, "/a.gif"), pipeline: pipeline)
            #expect(await waitUntil(player) { hasFrames(player) })
            guard case .firstFrame = player.phase else { Issue.record("no first frame: \(player.phase)"); return }
            #expect(!player.isPlaying)
            #expect(factory.sources.first?.decodeCount == 0)

            player.setVisible(true) // didMoveToWindow
            #expect(player.isPlaying)
            #expect(await waitUntilSleeping(clock))
            #expect(player.displayedFrame == 0)
            clock.advance(by: 0.1)
            #expect(await waitUntil(player) { player.displayedFrame == 1 })
        }
    }

    @Test("hidden before the bytes arrive: they arrive to a paused player, which decodes nothing and holds no frame memory")
    func hiddenBeforeBytes() async throws {
        try await withScriptedFixture { fixture in
            let gate = Gate()
            let gif = self.gif
            fixture.server.serve("/a.gif") { _ in
                await gate.wait()
                return .ok(gif, contentType: "image/gif")
            }
            let pipeline = fixture.makePipeline()
            let clock = ManualUptimeClock()
            let factory = FakeSourceFactory()
            let player = makePlayer(clock, factory)
            player.setVisible(true)
            player.load(ImageRequest(url: fixture.url("/a.gif")), pipeline: pipeline)
            player.setVisible(false) // the row scrolled away
            gate.open()
            #expect(await waitUntil(player) { hasFrames(player) })
            #expect(!player.isPlaying)
            clock.advance(by: 10)
            for _ in 0..<100 { await Task.yield() }
            #expect(factory.sources.first?.decodeCount == 0)
            #expect(player.bufferedCost == 0)
            #expect(clock.sleeperCount == 0)
        }
    }

    @Test("owner released while playing: the player is freed at once, its loop stops decoding and its frame memory leaves the cache")
    func ownerReleasedWhilePlaying() async throws {
        try await withScriptedFixture { fixture in
            let pipeline = fixture.makePipeline()
            let clock = ManualUptimeClock()
            let factory = FakeSourceFactory()
            var player: AnimationPlayer<FakeFrameSource>? = makePlayer(clock, factory)
            weak let released = player
            player?.setVisible(true)
            player?.load(serveGIF(fixture, "/a.gif"), pipeline: pipeline)
            #expect(await waitUntilSleeping(clock))
            let key = try #require(player?.frameCostKey)
            #expect(pipeline.memoryCache?.value(forKey: key)?.cost == 200) // frames 0 and 1

            player = nil
            #expect(released == nil)
            await clock.waitForSleepers(0)
            #expect(clock.sleeperCount == 0)
            let decodes = factory.sources.first?.decodeCount
            clock.advance(by: 10)
            for _ in 0..<100 { await Task.yield() }
            #expect(factory.sources.first?.decodeCount == decodes)
            #expect(pipeline.memoryCache?.value(forKey: key) == nil)
        }
    }

    @Test("two players of one URL: one request, one memory entry each; resetting one leaves the other's frames alone")
    func twoPlayersOfOneURL() async throws {
        try await withScriptedFixture { fixture in
            let pipeline = fixture.makePipeline()
            let clock = ManualUptimeClock()
            let factory = FakeSourceFactory()
            let request = serveGIF(fixture, "/a.gif")
            let first = makePlayer(clock, factory)
            let second = makePlayer(clock, factory)
            for player in [first, second] {
                player.setVisible(true)
                player.load(request, pipeline: pipeline)
            }
            #expect(await waitUntilSleeping(clock, count: 2))
            #expect(fixture.server.requestCount(for: "/a.gif") == 1)
            let firstKey = try #require(first.frameCostKey)
            let secondKey = try #require(second.frameCostKey)
            #expect(firstKey != secondKey)
            #expect(pipeline.memoryCache?.value(forKey: firstKey)?.cost == 200)
            #expect(pipeline.memoryCache?.value(forKey: secondKey)?.cost == 200)

            let decodesBefore = factory.sources.map(\.decodeCount).reduce(0, +)
            first.load(nil, pipeline: pipeline)
            #expect(pipeline.memoryCache?.value(forKey: firstKey) == nil)
            #expect(pipeline.memoryCache?.value(forKey: secondKey)?.cost == 200)
            // The second keeps its frames: over two passes it decodes only the one it lacked.
            for _ in 0..<6 {
                clock.advance(by: 0.1)
                #expect(await waitUntilSleeping(clock))
            }
            #expect(second.bufferedFrames == [0, 1, 2])
            #expect(pipeline.memoryCache?.value(forKey: secondKey)?.cost == 300)
            #expect(factory.sources.map(\.decodeCount).reduce(0, +) == decodesBefore + 1)
        }
    }

    @Test("background then foreground with a finite loop count: background time is not played; the animation then finishes on its last frame")
    func backgroundWithFiniteLoops() async throws {
        try await withScriptedFixture { fixture in
            let pipeline = fixture.makePipeline()
            let clock = ManualUptimeClock()
            let factory = FakeSourceFactory()
            let player = makePlayer(clock, factory)
            var finished = 0
            player.onFinish = { finished += 1 }
            player.setVisible(true)
            let once = ImageFixtures.animatedGIF(width: 8, height: 8, delays: [10, 10, 10], loopCount: 1)
            player.load(serveGIF(fixture, "/once.gif", once), pipeline: pipeline)
            #expect(await waitUntilSleeping(clock))
            clock.advance(by: 0.1)
            #expect(await waitUntil(player) { player.displayedFrame == 1 })
            #expect(await waitUntilSleeping(clock))

            player.setAppActive(false)
            #expect(!player.isPlaying)
            #expect(player.bufferedFrames == [1]) // paused: only the frame on screen
            await clock.waitForSleepers(0)
            #expect(clock.sleeperCount == 0)
            clock.advance(by: 3_600)
            player.setAppActive(true)
            #expect(player.isPlaying)
            #expect(!player.playback.isFinished)
            #expect(await waitUntilSleeping(clock))
            #expect(player.displayedFrame == 1)
            clock.advance(by: 0.1)
            #expect(await waitUntil(player) { player.displayedFrame == 2 })
            #expect(await waitUntilSleeping(clock))
            clock.advance(by: 0.1)
            #expect(await waitUntil(player) { player.playback.isFinished })
            #expect(player.displayedFrame == 2)
            #expect(!player.isPlaying)
            #expect(finished == 1)
            #expect(player.bufferedFrames == [2])
        }
    }

    @Test("pause and memory warnings keep only the frame on screen, and the memory entry follows")
    func pauseAndMemoryWarningTrim() async throws {
        try await withScriptedFixture { fixture in
            let pipeline = fixture.makePipeline()
            let clock = ManualUptimeClock()
            let player = await playedFullyBuffered(fixture, pipeline, clock)
            let key = try #require(player.frameCostKey)

            player.didReceiveMemoryWarning()
            #expect(player.bufferedFrames == [1])
            #expect(pipeline.memoryCache?.value(forKey: key)?.cost == 100)

            clock.advance(by: 0.1)
            #expect(await waitUntil(player) { player.displayedFrame == 2 })
            #expect(await waitUntilSleeping(clock))
            player.setRequestedPlaying(false) // stopAnimating / isAnimating = false
            #expect(player.bufferedFrames == [2])
            #expect(pipeline.memoryCache?.value(forKey: key)?.cost == 100)
            #expect(player.displayedFrame == 2)
        }
    }

    @Test("a fully buffered animation's frames go when the memory cache evicts its entry, with no decode to notice it; the frame on screen is charged again")
    func evictionDropsBufferedFrames() async throws {
        try await withScriptedFixture { fixture in
            let pipeline = fixture.makePipeline()
            let clock = ManualUptimeClock()
            // The whole loop is buffered: nothing decodes again.
            let player = await playedFullyBuffered(fixture, pipeline, clock)
            let key = try #require(player.frameCostKey)
            #expect(pipeline.memoryCache?.value(forKey: key)?.cost == 300)

            // Other images push the entry out (here: a trim, as memory pressure does).
            pipeline.memoryCache?.trim(toCost: 0)
            // No change to report (the frame on screen stays): the main actor runs the release.
            for _ in 0..<100_000 where player.bufferedFrames != [1] { await Task.yield() }
            #expect(player.bufferedFrames == [1])
            #expect(pipeline.memoryCache?.value(forKey: key)?.cost == 100, "the frame on screen is still held, and charged")
            #expect(player.displayedFrame == 1)

            // A pause removes the entry on purpose: not an eviction, the frame on screen stays.
            player.setRequestedPlaying(false)
            #expect(player.bufferedFrames == [1])
        }
    }

    @Test("decodes are serialised per image source: a resume overlapping a stopped playback's decode never uses the source from two threads")
    func decodesSerialised() async throws {
        try await withScriptedFixture { fixture in
            let pipeline = fixture.makePipeline()
            let clock = ManualUptimeClock()
            let hold = BlockingGate()
            let factory = FakeSourceFactory(hold: hold)
            let player = makePlayer(clock, factory)
            player.load(serveGIF(fixture, "/a.gif"), pipeline: pipeline)
            #expect(await waitUntil(player) { hasFrames(player) })
            for _ in 0..<5 {
                player.setVisible(true)
                for _ in 0..<20 { await Task.yield() }
                player.setVisible(false)
            }
            player.setVisible(true)
            for _ in 0..<20 { await Task.yield() }
            hold.open()
            #expect(await waitUntilSleeping(clock))
            #expect(player.displayedFrame == 0)
            #expect(factory.sources.first?.maxConcurrentDecodes == 1)
        }
    }

    @Test("a failed load is a failure phase; retry loads again")
    func failureAndRetry() async throws {
        try await withScriptedFixture { fixture in
            let pipeline = fixture.makePipeline()
            let clock = ManualUptimeClock()
            let player = makePlayer(clock, FakeSourceFactory())
            fixture.server.serve("/a.gif", .status(404))
            player.setVisible(true)
            let request = ImageRequest(url: fixture.url("/a.gif"))
            player.load(request, pipeline: pipeline)
            #expect(await waitUntil(player) { if case .failure = player.phase { true } else { false } })
            // Loading the same request again (body re-runs, onAppear) does not retry by itself.
            player.load(request, pipeline: pipeline)
            #expect(fixture.server.requestCount(for: "/a.gif") == 1)

            _ = serveGIF(fixture, "/a.gif")
            player.retry()
            #expect(await waitUntilSleeping(clock))
            #expect(player.displayedFrame == 0)
            #expect(fixture.server.requestCount(for: "/a.gif") == 2)
        }
    }

    @Test("speed and a loop count override drive the loop")
    func speedAndLoopCount() async throws {
        try await withScriptedFixture { fixture in
            let pipeline = fixture.makePipeline()
            let clock = ManualUptimeClock()
            let player = makePlayer(clock, FakeSourceFactory())
            player.setSpeed(2)
            player.setLoopCountOverride(1)
            player.setVisible(true)
            player.load(serveGIF(fixture, "/a.gif"), pipeline: pipeline)
            #expect(await waitUntilSleeping(clock))
            clock.advance(by: 0.05)
            #expect(await waitUntil(player) { player.displayedFrame == 1 })
            #expect(await waitUntilSleeping(clock))
            clock.advance(by: 0.1)
            #expect(await waitUntil(player) { player.playback.isFinished })
            #expect(player.displayedFrame == 2)
        }
    }
}
