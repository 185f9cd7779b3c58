import Foundation
import Testing
import LoopbackServer
@testable import CachedImageCLI

/// The demo's fling: every approach scrolls fast through the feed from empty caches, then a
/// screen back. Counts only (no timing).
@Suite("Demo: fling")
struct DemoFlingTests {
    static func options() -> DemoOptions {
        var options = DemoOptions()
        options.imageCount = 90
        options.traceLength = 12
        options.latencyMilliseconds = 0
        options.seed = 11
        options.weekDays = 0
        options.relaunchProbes = 0
        options.flingRows = 20
        options.flingLinks = []
        return options
    }

    @Test("the fling script: one row a frame down, one screen back, every cell's appearance listed")
    func session() {
        let session = FlingSession(imageCount: 90, columns: 3, visibleRows: 4, rows: 20)
        #expect(session.frames.count == 1 + 20 + 4)
        #expect(session.scrollBackStart == 21)
        #expect(session.frames[0].appeared == Array(0..<12))
        #expect(session.frames[1].appeared == [12, 13, 14] && session.frames[1].disappeared == [0, 1, 2])
        #expect(session.frames[21].appeared == [57, 58, 59], "the scroll back brings the row above back")
        #expect(session.finalScreen == Array(48..<60))
        #expect(session.appearances == 12 + 20 * 3 + 4 * 3)
        // A feed shorter than the fling stops at its end.
        #expect(FlingSession(imageCount: 15, columns: 3, visibleRows: 4, rows: 20).scrollBackStart == 2)
    }

    @Test("every approach flings: the stop screen is shown; CachedImage never downloads an image twice; --json carries the fling")
    func flingInvariants() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let report = try await DemoRunner(options: Self.options(), showsProgress: false).run()
        let session = FlingSession(imageCount: 90, columns: 3, visibleRows: 4, rows: 20)
        let distinct = Set(session.frames.flatMap(\.appeared)).count
        for approach in report.approaches {
            let fling = try #require(approach.fling, "\(approach.approach)")
            #expect(fling.appearances == session.appearances)
            #expect(fling.finalScreenShown == fling.finalScreen, "\(approach.approach): the screen the user stopped on is shown")
            #expect(fling.requests > 0 && fling.bytesDownloaded > 0)
            #expect(fling.peakDecodedBytes > 0)
            #expect(fling.completedAfterLeaving <= fling.appearances)
        }
        let cachedImage = try #require(report.approach(.cachedImage)?.fling)
        #expect(cachedImage.requests <= distinct, "one download per image at most, whatever the scrolling")
        #expect(cachedImage.scrollBackRequests <= session.frames[session.scrollBackStart...].reduce(0) { $0 + $1.appeared.count })

        #expect(FlingReplayer.time(untilShown: 2, of: [0.5, nil, 0.2, 0.9]) == 0.5)
        #expect(FlingReplayer.time(untilShown: 4, of: [0.5, nil, 0.2, 0.9]) == nil, "one cell never showed its image")
        #expect(FlingReplayer.time(untilShown: 0, of: []) == 0)

        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report.approach(.asyncImage))) as? [String: Any]
        let fling = try #require(json?["fling"] as? [String: Any])
        for key in ["requests", "bytesDownloaded", "completedAfterLeaving", "peakDecodedBytes"] {
            #expect(fling[key] is Int, "fling.\(key)")
        }
        #expect(DemoTable(report: report).render().contains("peak decoded bytes alive"))
    }

    @Test("the fling on an emulated link: every approach fills the stop screen; the stop's timings, the physical limit, the table and --json")
    func flingOnALink() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        var options = Self.options()
        options.flingOnly = true
        // A fast link keeps the test short; its bandwidth still binds (a shared downlink).
        options.flingLinks = [LinkProfile(name: "test-link", downlinkBitsPerSecond: 100_000_000, delayMilliseconds: 20)]
        let report = try await DemoRunner(options: options, showsProgress: false).run()
        let session = FlingSession(imageCount: 90, columns: 3, visibleRows: 4, rows: 20)
        for approach in report.approaches {
            let fling = try #require(approach.linkFlings.first, "\(approach.approach)")
            #expect(fling.link == "test-link")
            #expect(fling.finalScreenShown == fling.finalScreen, "\(approach.approach): the stop screen is shown")
            #expect(fling.stopScreenBytes > 0)
            let complete = try #require(fling.stopToComplete)
            let first = try #require(fling.stopToFirstImage)
            let half = try #require(fling.stopToHalf)
            #expect(first <= half && half <= complete)
            #expect(fling.physicalLimit == options.flingLinks[0].transferTime(ofBytes: fling.stopScreenBytes).seconds)
            #expect(approach.phases.isEmpty, "--fling-only runs no launch")
        }
        let cachedImage = try #require(report.approach(.cachedImage)?.linkFlings.first)
        let distinct = Set(session.frames.flatMap(\.appeared)).count
        #expect(cachedImage.scrollBackRequests <= session.frames[session.scrollBackStart...].reduce(0) { $0 + $1.appeared.count })
        #expect(cachedImage.requests <= 2 * distinct, "a flung row asks at most once more when it comes back")

        #expect(FlingReplayer.time(untilShown: 2, of: [0.5, nil, 0.2, 0.9]) == 0.5)
        #expect(FlingReplayer.time(untilShown: 4, of: [0.5, nil, 0.2, 0.9]) == nil, "one cell never showed its image")
        #expect(FlingReplayer.time(untilShown: 0, of: []) == 0)

        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report.approach(.cachedImage))) as? [String: Any]
        let linkFling = try #require((json?["linkFlings"] as? [[String: Any]])?.first)
        for key in ["stopToFirstImage", "stopToHalf", "stopToComplete", "physicalLimit", "stopScreenBytes", "link"] {
            #expect(linkFling[key] != nil, "linkFlings[0].\(key)")
        }
        let table = DemoTable(report: report).render()
        #expect(table.contains("Fling on test-link"))
        #expect(table.contains("stop -> stop screen complete (x limit)"))
    }
}
