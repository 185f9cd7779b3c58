import Foundation

/// Replays steps of a ``ScrollSession`` against one client: the cells of a step load together,
/// the next step starts when they are shown (the user looks at the screen before scrolling on).
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
struct SessionReplayer: Sendable {
    /// One cell appearance.
    struct Sample: Sendable {
        /// The view's place in the replayed steps (0 is the first step's first cell), the same
        /// for every approach.
        var view: Int
        var source: LoadSource
        /// How the bytes shown compare with the server's current version (`nil`: nothing shown).
        var verdict: FeedServer.Verdict?
        /// A stale stored copy was shown at once while it was revalidated (``Shown/staleFirst``).
        var staleFirst = false
        /// Seconds from the cell appearing to its image being decoded (or the failure).
        var latency: Double
        /// When it finished (``MonotonicTime``).
        var finishedAt: Double
    }

    let server: FeedServer

    /// Loads every step's cells through `client`; `progress` gets the number of views done.
    func replay(
        _ steps: [[Int]],
        client: any DemoClient,
        progress: @Sendable (Int) -> Void
    ) async -> [Sample] {
        var samples: [Sample] = []
        samples.reserveCapacity(steps.reduce(0) { $0 + $1.count })
        var firstView = 0
        for step in steps {
            let stepStart = firstView
            firstView += step.count
            let results = await withTaskGroup(of: Sample.self) { group in
                for (offset, index) in step.enumerated() {
                    let image = server.feed.images[index]
                    let url = server.url(for: image)
                    group.addTask {
                        let start = MonotonicTime.now()
                        let shown = await client.load(image, url: url)
                        let end = MonotonicTime.now()
                        let verdict = shown.data.map { server.verdict(for: $0, index: index) }
                        return Sample(view: stepStart + offset, source: shown.source, verdict: shown.source == .failed ? nil : verdict,
                                      staleFirst: shown.staleFirst, latency: end - start, finishedAt: end)
                    }
                }
                var results: [Sample] = []
                for await sample in group { results.append(sample) }
                return results
            }
            samples.append(contentsOf: results)
            progress(samples.count)
        }
        return samples
    }
}
