import Foundation
import LoopbackServer
import ToolSupport

/// Runs the demo: generates the feed, serves it on loopback, replays the same scroll session
/// through CachedImage and the naive approaches, and measures everything.
///
/// ```swift
/// let report = try await DemoRunner(options: DemoOptions()).run()
/// print(DemoTable(report: report).render())
/// ```
///
/// Approaches run one after another (so none competes with another for the CPU or the server),
/// each in its own temporary directory: first launch (scroll down, back to top), relaunch (new
/// client, same directory), day 2, then, once the server has been shut down, an offline launch.
/// Then the week: the server comes back on the same port, and each approach lives through days
/// 3, 4, … (a launch a day over the growing feed); the server goes down again and each approach
/// tries to show the latest day's images.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
public struct DemoRunner: Sendable {
    public let options: DemoOptions
    /// The approaches to compare, CachedImage first. Default: all.
    public let approaches: [DemoApproach]
    let showsProgress: Bool

    /// - Parameter showsProgress: Print progress on standard error.
    public init(options: DemoOptions, approaches: [DemoApproach] = DemoApproach.allCases, showsProgress: Bool = true) {
        self.options = options
        self.approaches = approaches
        self.showsProgress = showsProgress
    }

    /// Runs the demo and returns what was measured.
    ///
    /// - Throws: ``CLIError`` for invalid options or when the server cannot start.
    public func run() async throws -> DemoReport {
        try options.validate()
        let runStart = MonotonicTime.now()

        let imagesToGenerate = options.imageCount + options.weekDays * options.newImagesPerDay
        let generation = ProgressBar(label: "Generating images", total: imagesToGenerate, isEnabled: showsProgress && StandardError.isTerminal)
        let feed = await DemoFeed.generate(
            count: options.imageCount, weekDays: options.weekDays, newPerDay: options.newImagesPerDay, seed: options.seed
        ) { done in
            generation.update(completed: done)
        }
        generation.finish()
        log("Feed: \(feed.initialCount) images, \(Formatting.bytes(feed.totalBytes)); "
            + "\(feed.images.count - feed.initialCount) more over \(options.weekDays) days; generated in \(Formatting.duration(MonotonicTime.now() - runStart))")
        let week = WeekPlan(feed: feed, options: options)

        let dayOne = Date()
        let clock = DemoClock(start: dayOne)
        let server = try await FeedServer.start(
            feed: feed, latency: .milliseconds(options.latencyMilliseconds), maxAge: options.maxAge, clock: clock, link: options.link
        )
        let session = ScrollSession(
            imageCount: options.imageCount, columns: options.columns, visibleRows: options.visibleRows,
            viewCount: options.traceLength, seed: options.seed
        )
        let defaults = URLCacheDemoClient.platformDefaultCapacities
        let urlCacheMemory = options.urlCacheMemoryLimit ?? defaults.memory
        let urlCacheDisk = options.urlCacheDiskLimit ?? defaults.disk
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("cachedimage-demo-\(UUID().uuidString)", isDirectory: true)
        defer {
            if !options.keepCaches { try? FileManager.default.removeItem(at: root) }
        }
        log("Session: \(session.scrollViewCount) views of \(session.uniqueImageCount) distinct images, then \(session.backToTopViews) back to the top; \(options.latencyMilliseconds) ms latency; link: \(options.link.name)")

        var phases: [DemoApproach: [PhaseReport]] = [:]
        var samplesByApproach: [DemoApproach: Samples] = [:]
        var relaunchTimes: [DemoApproach: [Double]] = [:]
        let context = Context(
            server: server, options: options, root: root,
            urlCacheMemory: urlCacheMemory, urlCacheDisk: urlCacheDisk, clock: clock
        )
        // Day 2 comes an hour after the max-age has run out; the offline launch an hour later.
        // The week's days follow a day apart, the last day's offline check an hour after it.
        let dayTwo = dayOne.addingTimeInterval(TimeInterval(options.maxAge) + 3_600)
        func date(ofDay day: Int) -> Date {
            dayTwo.addingTimeInterval(TimeInterval(day - 2) * 86_400)
        }
        var flings: [DemoApproach: FlingReport] = [:]
        var linkFlings: [DemoApproach: [FlingReport]] = [:]
        var diskAfterDayTwo: [DemoApproach: Int] = [:]
        var diskAfterWeek: [DemoApproach: Int] = [:]
        do {
            try createDirectories(root: root)
            for approach in approaches where !options.flingOnly {
                var samples = Samples()
                clock.set(dayOne)
                server.setDay(1)
                let launch1 = try await runLaunch(
                    approach, parts: [Part(.scroll, session.scroll), Part(.backToTop, session.backToTop)],
                    context: context, samples: &samples
                )
                let relaunch = try await runLaunch(approach, parts: [Part(.relaunch, session.scroll)], context: context, samples: &samples)
                relaunchTimes[approach] = relaunch.compactMap(\.timeToFirstImage)
                    + (try await relaunchProbes(approach, firstScreen: session.scroll.first ?? [], context: context))
                clock.set(dayTwo)
                server.setDay(2)
                let secondDay = try await runLaunch(approach, parts: [Part(.dayTwo, session.scroll)], context: context, samples: &samples)
                phases[approach] = launch1 + relaunch + secondDay
                samplesByApproach[approach] = samples
            }
            for approach in approaches {
                flings[approach] = try await runFling(approach, context: context)
                for link in options.flingLinks {
                    if let report = try await runFling(approach, context: context, on: link) { linkFlings[approach, default: []].append(report) }
                }
            }
            if options.flingOnly {
                await server.shutdown()
                return report(
                    feed: feed, session: session, week: nil, context: context, runStart: runStart, phases: [:], samples: [:],
                    relaunchTimes: [:], disk: ([:], [:]), flings: (flings, linkFlings)
                )
            }
            await server.shutdown()
            log("Server stopped: offline from here on")
            clock.set(dayTwo.addingTimeInterval(3_600))
            for approach in approaches {
                var ignored = Samples()
                let offline = try await runLaunch(approach, parts: [Part(.offline, session.scroll)], context: context, samples: &ignored)
                phases[approach, default: []] += offline
                diskAfterDayTwo[approach] = Self.diskUsage(of: context.directory(for: approach))
            }

            if let latestDay = week.latestDay {
                try await server.restart()
                log("Server back on the same port: the week, days \(week.days[0].day)-\(latestDay)")
                for approach in approaches {
                    var samples = samplesByApproach[approach] ?? Samples()
                    for day in week.days {
                        clock.set(date(ofDay: day.day))
                        server.setDay(day.day)
                        var reports = try await runLaunch(
                            approach, parts: [Part(.week, day.scroll, day: day.day)], context: context, samples: &samples
                        )
                        let diskUsage = Self.diskUsage(of: context.directory(for: approach))
                        for index in reports.indices { reports[index].diskUsageAfterLaunch = diskUsage }
                        phases[approach, default: []] += reports
                    }
                    samplesByApproach[approach] = samples
                }
                await server.shutdown()
                log("Server stopped: offline again")
                clock.set(date(ofDay: latestDay).addingTimeInterval(3_600))
                for approach in approaches {
                    var ignored = Samples()
                    phases[approach, default: []] += try await runLaunch(
                        approach, parts: [Part(.weekOffline, week.offlineCheck, day: latestDay)], context: context, samples: &ignored
                    )
                    diskAfterWeek[approach] = Self.diskUsage(of: context.directory(for: approach))
                }
            }
        } catch {
            await server.shutdown()
            throw error
        }

        return report(
            feed: feed, session: session, week: week.latestDay == nil ? nil : week, context: context, runStart: runStart,
            phases: phases, samples: samplesByApproach, relaunchTimes: relaunchTimes,
            disk: (diskAfterDayTwo, diskAfterWeek), flings: (flings, linkFlings)
        )
    }

    private func report(
        feed: DemoFeed, session: ScrollSession, week: WeekPlan?, context: Context, runStart: Double,
        phases: [DemoApproach: [PhaseReport]], samples samplesByApproach: [DemoApproach: Samples],
        relaunchTimes: [DemoApproach: [Double]], disk: (afterDayTwo: [DemoApproach: Int], afterWeek: [DemoApproach: Int]),
        flings: (main: [DemoApproach: FlingReport], links: [DemoApproach: [FlingReport]])
    ) -> DemoReport {
        let (diskAfterDayTwo, diskAfterWeek) = disk
        let sameBytesDiskViews = Self.sameBytesDiskViews(samplesByApproach)
        return DemoReport(
            options: options,
            feed: DemoReport.Feed(
                images: feed.initialCount,
                pngImages: feed.initialImages.filter { $0.contentType == "image/png" }.count,
                jpegImages: feed.initialImages.filter { $0.contentType == "image/jpeg" }.count,
                totalBytes: feed.totalBytes,
                smallestBytes: feed.initialImages.map(\.data.count).min() ?? 0,
                largestBytes: feed.initialImages.map(\.data.count).max() ?? 0,
                sharedNameImages: feed.sharedNameCount,
                changedOnDayTwo: feed.dayTwo.count
            ),
            session: DemoReport.Session(
                scrollViews: session.scrollViewCount,
                uniqueImages: session.uniqueImageCount,
                backToTopViews: session.backToTopViews
            ),
            week: week.flatMap { week in week.latestDay.map { latestDay in
                DemoReport.Week(
                    firstDay: week.days[0].day,
                    lastDay: latestDay,
                    newImagesPerDay: options.newImagesPerDay,
                    newBytesPerDay: week.days.map { day in feed.batch(publishedOn: day.day).reduce(0) { $0 + $1.data.count } },
                    olderImagesPerDay: WeekPlan.olderImagesPerDay(options: options),
                    viewsPerDay: week.days.map(\.views),
                    distinctImagesPerDay: week.days.map(\.distinctImages),
                    publishedBytes: feed.publishedBytes(through: latestDay),
                    diskBudget: options.diskLimit,
                    latestDayImages: week.offlineCheckImages
                )
            } },
            urlCacheMemoryCapacity: context.urlCacheMemory,
            urlCacheDiskCapacity: context.urlCacheDisk,
            approaches: approaches.map { approach in
                let approachPhases = phases[approach] ?? []
                return ApproachReport(
                    approach: approach, phases: approachPhases, latencies: samplesByApproach[approach]?.bySource ?? [:],
                    latencyOnCachedImageDiskViews: sameBytesDiskViews.flatMap { views in
                        Self.latency(of: samplesByApproach[approach]?.byView ?? [:], on: views)
                    },
                    relaunchTimesToFirstImage: relaunchTimes[approach] ?? [],
                    diskUsage: diskAfterDayTwo[approach] ?? 0,
                    diskBudget: diskBudget(approach, context: context),
                    fling: flings.main[approach],
                    linkFlings: flings.links[approach] ?? [],
                    week: week?.latestDay.flatMap { latestDay in
                        approachPhases.first { $0.phase == .weekOffline }.map { offline in
                            WeekReport(
                                days: approachPhases.filter { $0.phase == .week }, offline: offline, latestDay: latestDay,
                                diskUsageBefore: diskAfterDayTwo[approach] ?? 0, diskUsage: diskAfterWeek[approach] ?? 0,
                                diskBudget: options.diskLimit
                            )
                        }
                    }
                )
            },
            duration: MonotonicTime.now() - runStart,
            cacheDirectory: options.keepCaches ? context.root.path : nil,
            buildConfiguration: Self.buildConfiguration
        )
    }

    private static var buildConfiguration: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }
}
