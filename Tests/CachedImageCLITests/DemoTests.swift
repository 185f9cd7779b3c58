import Foundation
import Testing
@testable import CachedImageCLI

/// Runs the real demo (loopback server, generated feed, all four approaches) on a small session
/// and checks the invariants the README's table rests on.
@Suite("Demo")
struct DemoTests {
    static func smallOptions() -> DemoOptions {
        var options = DemoOptions()
        options.imageCount = 24
        options.traceLength = 60
        options.latencyMilliseconds = 0
        options.flingLinks = [] // the link flings have their own test (DemoFlingTests)
        options.seed = 7
        // The week: 4 days of 24 new images (about 3 MB a day). The disk budget holds day 1's
        // feed (about 3.8 MB on disk after day 2) and any day's batch, not all that is published;
        // the week test checks that it sits between them.
        options.weekDays = 4
        options.newImagesPerDay = 24
        options.diskLimit = 4_500_000
        return options
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    static func run(_ options: DemoOptions = smallOptions()) async throws -> DemoReport {
        try await DemoRunner(options: options, showsProgress: false).run()
    }

    @Test("CachedImage downloads each distinct image once, nothing on relaunch, and serves everything offline")
    func cachedImageInvariants() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let report = try await Self.run()
        let cachedImage = try #require(report.approach(.cachedImage))
        let scroll = try #require(cachedImage.phase(.scroll))
        let backToTop = try #require(cachedImage.phase(.backToTop))
        let relaunch = try #require(cachedImage.phase(.relaunch))
        let offline = try #require(cachedImage.phase(.offline))

        #expect(report.session.uniqueImages > 0)
        #expect(scroll.networkRequests == report.session.uniqueImages)
        #expect(scroll.networkLoads == report.session.uniqueImages)
        #expect(backToTop.networkRequests == 0)
        #expect(relaunch.networkRequests == 0)
        #expect(relaunch.failures == 0)
        #expect(offline.networkRequests == 0)
        #expect(offline.views == report.session.scrollViews)
        #expect(offline.shown == offline.views)
        #expect(cachedImage.offlineShown == cachedImage.offlineViews)
        // Every byte of day 1's feed, downloaded exactly once before day 2.
        let beforeDayTwo = [scroll, backToTop, relaunch]
        #expect(beforeDayTwo.reduce(0) { $0 + $1.networkRequests } == report.session.uniqueImages)
        #expect(beforeDayTwo.reduce(0) { $0 + $1.bytesDownloaded } == report.feed.totalBytes)
    }

    @Test("Day 2: CachedImage shows no outdated image and downloads only what changed; the documents directory shows outdated ones")
    func dayTwo() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let report = try await Self.run()
        let cachedImage = try #require(report.approach(.cachedImage))
        let day = try #require(cachedImage.phase(.dayTwo))
        #expect(report.feed.changedOnDayTwo > 0)
        #expect(day.outdatedShown == 0)
        #expect(day.failures == 0)
        // Every distinct image revalidated once; the unchanged ones answered 304.
        #expect(day.conditionalRequests == report.session.uniqueImages)
        #expect(day.notModified == report.session.uniqueImages - report.feed.changedOnDayTwo)
        #expect(day.networkRequests == report.session.uniqueImages)
        #expect(day.bytesDownloaded > 0)
        #expect(day.bytesDownloaded < report.feed.totalBytes / 2)
        #expect(cachedImage.outdatedShown == 0)

        let documents = try #require(report.approach(.documentsDirectory))
        let documentsDay = try #require(documents.phase(.dayTwo))
        #expect(documentsDay.networkRequests == 0)
        #expect(documentsDay.outdatedShown > 0)
        #expect(documents.phase(.offline)?.outdatedShown ?? 0 > 0)
    }

    @Test("Repeating last path components: CachedImage shows no wrong image, the documents directory does")
    func urlLayouts() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let report = try await Self.run()
        #expect(report.feed.sharedNameImages > 1)
        let cachedImage = try #require(report.approach(.cachedImage))
        let documents = try #require(report.approach(.documentsDirectory))
        #expect(cachedImage.wrongShown == 0)
        #expect(documents.wrongShown > 0)
        for approach in [DemoApproach.asyncImage, .nsCache] {
            #expect(report.approach(approach)?.wrongShown == 0)
        }
    }

    @Test("Work per view and disk: CachedImage decodes less than the approaches without a decoded-image cache and stays within its disk budget")
    func decodesAndDisk() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let report = try await Self.run()
        let cachedImage = try #require(report.approach(.cachedImage))
        let asyncImage = try #require(report.approach(.asyncImage))
        let documents = try #require(report.approach(.documentsDirectory))
        #expect(cachedImage.decodes > 0)
        #expect(cachedImage.decodedBytes > 0)
        // Without a memory cache of decoded images, every view that shows something decodes.
        let shownByAsyncImage = asyncImage.phases.reduce(0) { $0 + $1.shown }
        #expect(asyncImage.decodes == shownByAsyncImage)
        #expect(cachedImage.decodes < asyncImage.decodes)
        #expect(cachedImage.decodes < documents.decodes)
        let budget = try #require(cachedImage.diskBudget)
        #expect(cachedImage.diskUsage > 0)
        #expect(cachedImage.diskUsage <= budget)
        #expect(documents.diskBudget == nil)
    }

    @Test("A week of use: CachedImage stays within the disk budget and shows every image of the latest day offline; the documents directory outgrows the budget")
    func weekOfUse() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let options = Self.smallOptions()
        let report = try await Self.run(options)
        let week = try #require(report.week)
        // The budget means something: it holds day 1's feed and any one day's batch, not the week.
        #expect(week.firstDay == 3)
        #expect(week.lastDay == 2 + options.weekDays)
        #expect(week.diskBudget == options.diskLimit)
        #expect(week.newBytesPerDay.count == options.weekDays)
        #expect(report.feed.totalBytes < week.diskBudget)
        #expect(week.newBytesPerDay.allSatisfy { $0 > 0 && $0 < week.diskBudget })
        #expect(week.publishedBytes > 2 * week.diskBudget)
        #expect(week.latestDayImages == options.newImagesPerDay)

        let cachedImage = try #require(report.approach(.cachedImage))
        let ours = try #require(cachedImage.week)
        let days = cachedImage.phases(.week)
        #expect(days.map(\.day) == Array(week.firstDay...week.lastDay))
        #expect(ours.days == options.weekDays)
        // Each day's new images are downloaded (once each, coalesced), shown current, never wrong.
        for day in days {
            #expect(day.failures == 0)
            #expect(day.outdatedShown == 0)
            #expect(day.wrongShown == 0)
            #expect(day.networkLoads >= options.newImagesPerDay)
            #expect((day.diskUsageAfterLaunch ?? .max) <= week.diskBudget)
        }
        // It downloaded more than the budget over the week, so it had to evict to stay within it.
        #expect(ours.bytesDownloaded > week.diskBudget)
        #expect(ours.diskUsage > 0)
        #expect(ours.diskUsage <= week.diskBudget)
        #expect(ours.isWithinBudget)
        // Offline after the week: every image of the latest day, with the server's bytes.
        #expect(ours.latestDay == week.lastDay)
        #expect(ours.latestDayImages == week.latestDayImages)
        #expect(ours.latestDayShownOffline == ours.latestDayImages)
        #expect(ours.latestDayNotShownOffline == 0)
        #expect(ours.latestDayWrongOffline == 0)
        #expect(ours.latestDayOutdatedOffline == 0)
        #expect(cachedImage.phase(.weekOffline)?.networkRequests == 0)

        // The documents directory never evicts: past the budget, and it grew by more than the
        // budget's headroom over the week; file-name collisions show wrong images offline too.
        let documents = try #require(report.approach(.documentsDirectory)?.week)
        #expect(documents.diskUsage > week.diskBudget)
        #expect(!documents.isWithinBudget)
        #expect(documents.diskGrowth > 0)
        #expect(documents.diskUsagePerDay == documents.diskUsagePerDay.sorted())
        #expect(documents.latestDayWrongOffline > 0)
        #expect(documents.latestDayShownOffline < ours.latestDayShownOffline)
        // NSCache keeps nothing on disk and shows nothing offline.
        let nsCache = try #require(report.approach(.nsCache)?.week)
        #expect(nsCache.diskUsage == 0)
        #expect(nsCache.latestDayShownOffline == 0)
        #expect(nsCache.latestDayNotShownOffline == nsCache.latestDayImages)
        // The table says so.
        let table = DemoTable(report: report).render()
        #expect(table.contains("Week (days 3-\(week.lastDay)"))
        #expect(table.contains("within the \(Formatting.bytes(week.diskBudget)) budget"))
        #expect(table.contains("day \(week.lastDay) offline \(ours.latestDayShownOffline) of \(ours.latestDayImages) images shown vs \(documents.latestDayShownOffline)"))
    }

    @Test("Without the week, the report has none and the table shows no week rows")
    func noWeek() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        var options = Self.smallOptions()
        options.weekDays = 0
        let report = try await DemoRunner(options: options, approaches: [.cachedImage, .documentsDirectory], showsProgress: false).run()
        #expect(report.week == nil)
        #expect(report.approaches.allSatisfy { $0.week == nil && $0.phases(.week).isEmpty })
        #expect(!DemoTable(report: report).render().contains("Week ("))
    }

    @Test("Baselines behave as their designs imply: NSCache forgets on relaunch, files survive offline")
    func baselineInvariants() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let report = try await Self.run()
        let nsCache = try #require(report.approach(.nsCache))
        let documents = try #require(report.approach(.documentsDirectory))
        let asyncImage = try #require(report.approach(.asyncImage))

        // Nothing in memory survives a relaunch: the relaunch downloads again; offline shows nothing.
        #expect(nsCache.phase(.relaunch)?.networkRequests ?? 0 >= report.session.uniqueImages)
        #expect(nsCache.offlineShown == 0)
        // Files named after the URL's last path component: at most one download per image (fewer
        // when names repeat), then disk, offline too.
        #expect(documents.phase(.scroll)?.networkRequests ?? 0 <= report.session.uniqueImages)
        #expect(documents.phase(.relaunch)?.networkRequests == 0)
        #expect(documents.offlineShown == documents.offlineViews)
        // AsyncImage has no decoded-image cache.
        #expect(asyncImage.memoryHitRatio == 0)
        #expect(asyncImage.phase(.scroll)?.networkRequests ?? 0 >= report.session.uniqueImages)
        // Every view is accounted for exactly once.
        for approach in report.approaches {
            for phase in approach.phases {
                #expect(phase.memoryHits + phase.diskHits + phase.networkLoads + phase.failures == phase.views)
            }
        }
    }

    @Test("A URLCache too small for the feed makes the AsyncImage-like baseline download again")
    func smallURLCacheDownloadsAgain() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        var options = Self.smallOptions()
        options.urlCacheMemoryLimit = 0
        options.urlCacheDiskLimit = 0
        let report = try await DemoRunner(options: options, approaches: [.cachedImage, .asyncImage], showsProgress: false).run()
        let asyncImage = try #require(report.approach(.asyncImage))
        #expect(asyncImage.phase(.relaunch)?.networkRequests == report.session.scrollViews)
        #expect(asyncImage.offlineShown == 0)
        let comparison = try #require(report.comparisons.first)
        #expect(comparison.baseline == .asyncImage)
        #expect(comparison.factor > 1)
    }

    @Test("The table shows every approach, every phase and the savings line; JSON round-trips")
    func tableAndJSON() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let report = try await Self.run()
        let table = DemoTable(report: report).render()
        for approach in DemoApproach.allCases {
            #expect(table.contains(approach.title))
        }
        for phase in DemoPhase.allCases {
            #expect(table.contains(phase.title))
        }
        let cachedImage = try #require(report.approach(.cachedImage))
        #expect(table.contains("CachedImage: \(cachedImage.networkRequests) requests, NSCache only:"))
        #expect(table.contains("Build: \(report.buildConfiguration)"))
        #expect(table.contains("outdated images shown"))
        #expect(table.contains("wrong images shown"))
        #expect(table.contains("decodes"))

        let data = try JSONEncoder().encode(report)
        let decoded = try JSONDecoder().decode(DemoReport.self, from: data)
        #expect(decoded == report)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect((object["comparisons"] as? [Any])?.count == 3)
        let week = try #require(object["week"] as? [String: Any])
        #expect(week["publishedBytes"] as? Int == report.week?.publishedBytes)
        let approaches = try #require(object["approaches"] as? [[String: Any]])
        for approach in approaches {
            let approachWeek = try #require(approach["week"] as? [String: Any])
            for key in ["diskUsage", "diskBudget", "diskUsagePerDay", "latestDayShownOffline", "latestDayImages", "latestDayWrongOffline"] {
                #expect(approachWeek[key] != nil, "missing week.\(key)")
            }
        }
    }

    @Test("The relaunch's time to first image is a median over the relaunch and its probes, which change no count; disk reads are also compared on the same views and bytes")
    func relaunchProbesAndSameViews() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        var options = Self.smallOptions()
        options.weekDays = 0
        options.relaunchProbes = 0
        let without = try await Self.run(options)
        options.relaunchProbes = 3
        let with = try await Self.run(options)

        for approach in with.approaches {
            // Every probe shows the first screen (from disk, memory or the network).
            #expect(approach.relaunchTimesToFirstImage.count == 4, "\(approach.approach)")
            #expect(approach.relaunchTimesToFirstImage.allSatisfy { $0 > 0 })
            // The probes run on a copy of the directory with their own decode counter.
            let other = try #require(without.approach(approach.approach))
            #expect(other.relaunchTimesToFirstImage.count == 1)
            for phase in [DemoPhase.relaunch, .dayTwo, .offline] {
                #expect(approach.phase(phase)?.networkRequests == other.phase(phase)?.networkRequests, "\(approach.approach) \(phase)")
                #expect(approach.phase(phase)?.decodes == other.phase(phase)?.decodes, "\(approach.approach) \(phase)")
                #expect(approach.phase(phase)?.outdatedShown == other.phase(phase)?.outdatedShown, "\(approach.approach) \(phase)")
            }
        }

        // The like-for-like row times every approach on the same views: CachedImage's disk reads
        // where every approach showed the current bytes. The documents directory shows another
        // URL's file for shared file names on the relaunch, where CachedImage reads its disk, so
        // those views are left out.
        let cachedImage = try #require(with.approach(.cachedImage))
        let disk = try #require(cachedImage.latency(.disk))
        let sameBytes = try #require(cachedImage.latencyOnCachedImageDiskViews)
        let documents = try #require(with.approach(.documentsDirectory))
        try #require((documents.phase(.relaunch)?.wrongShown ?? 0) > 0)
        #expect(sameBytes.count > 0)
        #expect(sameBytes.count < disk.count)
        for approach in with.approaches {
            #expect(approach.latencyOnCachedImageDiskViews?.count == sameBytes.count, "\(approach.approach)")
        }
        let table = DemoTable(report: with).render()
        #expect(table.contains("Time to first image: relaunch (median of 4)"))
        #expect(table.contains("on CachedImage's disk views (same bytes)"))
    }

    @Test("Invalid options are refused with one line naming the flag")
    func invalidOptions() throws {
        var options = DemoOptions()
        options.imageCount = 0
        #expect(throws: CLIError("--images must be between 1 and 5000 (got 0)")) { try options.validate() }
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        #expect(throws: (any Error).self) { try CachedImageCommand.parseAsRoot(["demo", "--latency", "-5"]) }
    }
}
