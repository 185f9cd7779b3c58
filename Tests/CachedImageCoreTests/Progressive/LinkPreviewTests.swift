import Foundation
import Testing
import ImageFixtures
import LoopbackServer
@testable import CachedImageCore

/// Progressive previews by default follow the link (issue 51): on once the pipeline has
/// measured a slow link, off on a fast one and before any measurement; the request's options
/// force them either way. On a ``SimulatedNetwork``, in virtual time.
@Suite("Progressive previews follow the measured link", .timeLimit(.minutes(2)))
struct LinkPreviewTests {
    /// A pipeline on `network` whose previews are not spaced in time (its cache clock stands still).
    private func makePipeline(_ fixture: ScriptedFixture, _ network: SimulatedNetwork) -> ImagePipeline {
        fixture.makePipeline {
            $0.dataLoader = network
            $0.linkClock = network.clock
            $0.progressivePreviewPolicy = ProgressivePreviewPolicy(maximumPreviewCount: 10, minimumInterval: 0)
        }
    }

    /// Downloads `count` photos of `width` x `height` random pixels, so that the link gets measured.
    private func measure(_ network: SimulatedNetwork, _ pipeline: ImagePipeline, count: Int, width: Int, height: Int) async throws {
        let urls = (0..<count).map { network.serve("/photo\($0).png", ImageFixtures.png(width: width, height: height, seed: 40 + UInt64($0))) }
        let tasks = urls.map { url in Task { _ = try await pipeline.image(for: url) } }
        let done = await network.run(pipeline) { network.completed.count >= count }
        #expect(done)
        for task in tasks { try await task.value }
    }

    /// Loads the progressive JPEG at `path` with `options`; returns how many previews its observer got.
    private func previews(
        _ path: String, options: ImageRequest.Options = [], _ network: SimulatedNetwork, _ pipeline: ImagePipeline, step: TimeInterval = 0.01
    ) async throws -> Int {
        let url = network.serve(path, try ProgressiveFixtures.progressive(), contentType: "image/jpeg")
        let count = Locked(0)
        let task = pipeline.imageTask(with: ImageRequest(url: url, options: options), preview: { _ in count.withLock { $0 += 1 } })
        let before = network.completed.count
        let done = await network.run(pipeline, step: step) { network.completed.count > before }
        #expect(done)
        let response = try await task.response
        #expect(!response.isPreview)
        return count.withLock { $0 }
    }

    @Test("3G: no previews before the link is measured; once measured slow, previews without asking; never with skip")
    func slowLinkPreviews() async throws {
        try await withScriptedFixture { fixture in
            let network = SimulatedNetwork(profile: .threeG)
            let pipeline = makePipeline(fixture, network)
            let unmeasured = try await previews("/first.jpg", network, pipeline)
            #expect(unmeasured == 0, "nothing measured yet: no decode spent")
            try await measure(network, pipeline, count: 4, width: 200, height: 150)
            #expect(pipeline.link.isSlow == true, "a 90 KB photo takes about two seconds at half of 97.5 KB/s")
            let automatic = try await previews("/auto.jpg", network, pipeline)
            #expect(automatic > 0, "previews on a slow link without the option")
            let skipped = try await previews("/skip.jpg", options: [.skipProgressivePreviews], network, pipeline)
            #expect(skipped == 0)
            let both = try await previews("/both.jpg", options: [.skipProgressivePreviews, .showProgressivePreviews], network, pipeline)
            #expect(both == 0, "skip wins")
        }
    }

    @Test("LTE: once measured fast, no previews without asking; with the option, previews on any link")
    func fastLinkSkipsPreviews() async throws {
        try await withScriptedFixture { fixture in
            let network = SimulatedNetwork(profile: .lte)
            let pipeline = makePipeline(fixture, network)
            try await measure(network, pipeline, count: 12, width: 400, height: 300)
            #expect(pipeline.link.isSlow == false, "a 360 KB photo takes well under a second at 6.25 MB/s")
            // Steps of a millisecond: the 18 KB JPEG arrives in a few pieces, scans apart.
            let automatic = try await previews("/auto.jpg", network, pipeline, step: 0.001)
            #expect(automatic == 0, "no decode spent on a fast link")
            let asked = try await previews("/asked.jpg", options: [.showProgressivePreviews], network, pipeline, step: 0.001)
            #expect(asked > 0, "asked for: previews on any link")
        }
    }
}
