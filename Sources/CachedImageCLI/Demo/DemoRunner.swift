import Foundation
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
    private let showsProgress: Bool

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
            feed: feed, latency: .milliseconds(options.latencyMilliseconds), maxAge: options.maxAge, clock: clock
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
        log("Session: \(session.scrollViewCount) views of \(session.uniqueImageCount) distinct images, then \(session.backToTopViews) back to the top; \(options.latencyMilliseconds) ms latency")

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
        var diskAfterDayTwo: [DemoApproach: Int] = [:]
        var diskAfterWeek: [DemoApproach: Int] = [:]
        do {
            try createDirectories(root: root)
            for approach in approaches {
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
            week: week.latestDay.map { latestDay in
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
            },
            urlCacheMemoryCapacity: urlCacheMemory,
            urlCacheDiskCapacity: urlCacheDisk,
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
                    week: week.latestDay.flatMap { latestDay in
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
            cacheDirectory: options.keepCaches ? root.path : nil,
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

    // MARK: Launches

    private struct Context: Sendable {
        var server: FeedServer
        var options: DemoOptions
        var root: URL
        var urlCacheMemory: Int
        var urlCacheDisk: Int
        var clock: DemoClock
        let decodes = Protected<[DemoApproach: DecodeCounter]>([:])

        func decodeCounter(for approach: DemoApproach) -> DecodeCounter {
            decodes.withLock { counters in
                if let counter = counters[approach] { return counter }
                let counter = DecodeCounter()
                counters[approach] = counter
                return counter
            }
        }

        func directory(for approach: DemoApproach) -> URL {
            root.appendingPathComponent(approach.rawValue, isDirectory: true)
        }
    }

    private func createDirectories(root: URL) throws {
        for approach in approaches {
            let directory = root.appendingPathComponent(approach.rawValue, isDirectory: true)
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw CLIError("could not create the demo's cache directory \(directory.path): \(error.localizedDescription)")
            }
        }
    }

    /// One phase of a launch: the steps it replays (image indices), and the week's day.
    private struct Part {
        var phase: DemoPhase
        var steps: [[Int]]
        var day: Int?

        init(_ phase: DemoPhase, _ steps: [[Int]], day: Int? = nil) {
            self.phase = phase
            self.steps = steps
            self.day = day
        }
    }

    /// A view's place in the whole run: the same for every approach.
    private struct ViewID: Hashable {
        var phase: DemoPhase
        var day: Int?
        var view: Int
    }

    /// What an approach's views measured in the phases with the server up: latencies by where
    /// the image came from, and each view's sample (to compare approaches on the same views).
    private struct Samples {
        var bySource: [LoadSource: [Double]] = [:]
        var byView: [ViewID: SessionReplayer.Sample] = [:]
    }

    /// The views for a like-for-like comparison of disk reads: those CachedImage served from its
    /// disk cache where every approach showed the server's current bytes. Each approach's own disk
    /// row counts different views (CachedImage reads its disk only when its memory cache misses),
    /// and a view where an approach showed an older version or another URL's file (the documents
    /// directory's shared file names) read other bytes. `nil` when CachedImage did not run.
    private static func sameBytesDiskViews(_ samples: [DemoApproach: Samples]) -> [ViewID]? {
        guard let reference = samples[.cachedImage]?.byView else { return nil }
        return reference.compactMap { id, sample in
            guard sample.source == .disk else { return nil }
            let sameBytes = samples.values.allSatisfy { other in
                other.byView[id].map { $0.source != .failed && $0.verdict == .current } ?? false
            }
            return sameBytes ? id : nil
        }
    }

    /// Latency percentiles of `samples` on `views`.
    private static func latency(of samples: [ViewID: SessionReplayer.Sample], on views: [ViewID]) -> LatencySummary? {
        LatencySummary(views.compactMap { samples[$0]?.latency })
    }

    /// One process lifetime: a new client over the approach's directory, the given phases, then
    /// the client persists what it must and goes away.
    private func runLaunch(
        _ approach: DemoApproach,
        parts: [Part],
        context: Context,
        samples: inout Samples
    ) async throws -> [PhaseReport] {
        let launchStart = MonotonicTime.now()
        let client = makeClient(approach, context: context)
        var reports: [PhaseReport] = []
        for part in parts {
            let phase = part.phase
            let steps = part.steps
            let phaseTitle = part.day.map { "\(phase == .week ? "week" : "week offline"), day \($0)" } ?? phase.title
            let total = steps.reduce(0) { $0 + $1.count }
            let bar = ProgressBar(
                label: "\(approach.title.padding(toLength: 16, withPad: " ", startingAt: 0)) \(phaseTitle)",
                total: total, isEnabled: showsProgress && StandardError.isTerminal
            )
            let requestsBefore = context.server.totalRequestCount
            let bytesBefore = context.server.bytesSent
            let conditionalBefore = context.server.conditionalCounts
            let decodesBefore = context.decodeCounter(for: approach).snapshot
            let phaseStart = MonotonicTime.now()
            let results = await SessionReplayer(server: context.server).replay(steps, client: client) { done in
                bar.update(completed: done)
            }
            let phaseEnd = MonotonicTime.now()
            bar.finish()

            var counts: [LoadSource: Int] = [:]
            var outdated = 0
            var wrong = 0
            for sample in results {
                counts[sample.source, default: 0] += 1
                if sample.verdict == .outdated { outdated += 1 }
                if sample.verdict == .wrong { wrong += 1 }
                if !phase.isOffline {
                    samples.bySource[sample.source, default: []].append(sample.latency)
                    samples.byView[ViewID(phase: phase, day: part.day, view: sample.view)] = sample
                }
            }
            let firstShown = results.filter { $0.source != .failed }.map(\.finishedAt).min()
            let report = PhaseReport(
                phase: phase,
                day: part.day,
                views: results.count,
                memoryHits: counts[.memory] ?? 0,
                diskHits: counts[.disk] ?? 0,
                networkLoads: counts[.network] ?? 0,
                failures: counts[.failed] ?? 0,
                networkRequests: context.server.totalRequestCount - requestsBefore,
                bytesDownloaded: context.server.bytesSent - bytesBefore,
                timeToFirstImage: phase.startsLaunch ? firstShown.map { $0 - launchStart } : nil,
                duration: phaseEnd - phaseStart,
                outdatedShown: outdated,
                wrongShown: wrong,
                conditionalRequests: context.server.conditionalCounts.conditional - conditionalBefore.conditional,
                notModified: context.server.conditionalCounts.notModified - conditionalBefore.notModified,
                decodes: context.decodeCounter(for: approach).snapshot.count - decodesBefore.count,
                decodedBytes: context.decodeCounter(for: approach).snapshot.bytes - decodesBefore.bytes
            )
            reports.append(report)
            log("  \(approach.title.padding(toLength: 16, withPad: " ", startingAt: 0)) \(phaseTitle.padding(toLength: 28, withPad: " ", startingAt: 0)) "
                + "\(Formatting.count(report.views)) views, \(Formatting.count(report.networkRequests)) requests, "
                + "\(report.failures > 0 ? "\(Formatting.count(report.failures)) not shown, " : "")\(Formatting.duration(report.duration))")
        }
        await client.endLaunch()
        return reports
    }

    /// Times to the first image of ``DemoOptions/relaunchProbes`` more relaunches that show only
    /// the first screen: each a new client over a copy of the approach's directory (so the
    /// session's own caches, counts and decodes are left as they were), as one relaunch is a
    /// single, noisy sample.
    private func relaunchProbes(_ approach: DemoApproach, firstScreen: [Int], context: Context) async throws -> [Double] {
        guard options.relaunchProbes > 0, !firstScreen.isEmpty else { return [] }
        let copy = context.root.appendingPathComponent("\(approach.rawValue)-relaunch-probes", isDirectory: true)
        try? FileManager.default.removeItem(at: copy)
        do {
            try FileManager.default.copyItem(at: context.directory(for: approach), to: copy)
        } catch {
            throw CLIError("could not copy the demo's cache directory for the relaunch probes: \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(at: copy) }
        var times: [Double] = []
        for _ in 0..<options.relaunchProbes {
            let launchStart = MonotonicTime.now()
            let client = makeClient(approach, context: context, directory: copy, decodes: DecodeCounter())
            let results = await SessionReplayer(server: context.server).replay([firstScreen], client: client) { _ in }
            if let first = results.filter({ $0.source != .failed }).map(\.finishedAt).min() {
                times.append(first - launchStart)
            }
            await client.endLaunch()
        }
        return times
    }

    private func makeClient(
        _ approach: DemoApproach,
        context: Context,
        directory: URL? = nil,
        decodes: DecodeCounter? = nil
    ) -> any DemoClient {
        let directory = directory ?? context.directory(for: approach)
        let decodes = decodes ?? context.decodeCounter(for: approach)
        switch approach {
        case .cachedImage:
            return PipelineDemoClient(
                directory: directory, options: context.options, clock: context.clock,
                decodes: decodes
            )
        case .asyncImage:
            return URLCacheDemoClient(
                directory: directory, memoryCapacity: context.urlCacheMemory, diskCapacity: context.urlCacheDisk,
                server: context.server, cellPixels: context.options.cellPixels, clock: context.clock,
                decodes: decodes
            )
        case .documentsDirectory:
            return DocumentsDirectoryDemoClient(
                directory: directory, cellPixels: context.options.cellPixels, decodes: decodes
            )
        case .nsCache:
            return NSCacheDemoClient(
                memoryLimit: context.options.memoryLimit, cellPixels: context.options.cellPixels,
                decodes: decodes
            )
        }
    }

    /// The disk budget `approach` enforces, in bytes; `nil` when it has none.
    private func diskBudget(_ approach: DemoApproach, context: Context) -> Int? {
        switch approach {
        case .cachedImage: context.options.diskLimit
        case .asyncImage: context.urlCacheDisk
        case .documentsDirectory: nil
        case .nsCache: 0
        }
    }

    /// Bytes of the regular files under `directory` (what the approach left on disk).
    private static func diskUsage(of directory: URL) -> Int {
        guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey]) else {
            return 0
        }
        var total = 0
        for case let file as URL in files {
            let values = try? file.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            if values?.isRegularFile == true { total += values?.fileSize ?? 0 }
        }
        return total
    }

    private func log(_ line: String) {
        if showsProgress { StandardError.line(line) }
    }
}
