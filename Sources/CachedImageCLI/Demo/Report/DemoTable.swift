/// Renders a ``DemoReport`` as the side-by-side table `cachedimage demo` prints: one column per
/// approach, one row per measurement, then the savings as ratios.
public struct DemoTable: Sendable {
    public let report: DemoReport

    public init(report: DemoReport) {
        self.report = report
    }

    /// The table and the summary lines, ending with a newline.
    public func render() -> String {
        var lines = header()
        lines.append("")
        lines += table()
        lines.append("")
        lines += summary()
        if report.buildConfiguration == "debug" {
            lines.append("")
            lines.append("Timings come from a debug build (swift run's default), where CachedImage's checksums and "
                + "caches run unoptimised; for release timings: swift run -c release cachedimage demo")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Parts

    private func header() -> [String] {
        let options = report.options
        let feed = report.feed
        let session = report.session
        var lines = [
            "CachedImage demo: \(Formatting.count(feed.images)) images (\(Formatting.bytes(feed.totalBytes)); "
                + "\(feed.pngImages) PNG, \(feed.jpegImages) JPEG, \(Formatting.bytes(feed.smallestBytes))-\(Formatting.bytes(feed.largestBytes))) "
                + "on a loopback server, \(options.latencyMilliseconds) ms latency, Cache-Control max-age=\(options.maxAge)",
            "Session: scroll down \(Formatting.count(session.scrollViews)) views (\(Formatting.count(session.uniqueImages)) distinct images), "
                + "back to top (\(Formatting.count(session.backToTopViews)) views); relaunch and replay; "
                + "day 2 (max-age passed, \(Formatting.count(feed.changedOnDayTwo)) images changed) relaunch and replay; stop the server, relaunch and replay",
            "Budgets: memory \(Formatting.bytes(options.memoryLimit)) (CachedImage, NSCache), CachedImage disk \(Formatting.bytes(options.diskLimit)), "
                + "URLCache \(Formatting.bytes(report.urlCacheMemoryCapacity)) memory + \(Formatting.bytes(report.urlCacheDiskCapacity)) disk"
                + (options.urlCacheMemoryLimit == nil && options.urlCacheDiskLimit == nil ? " (this platform's URLCache.shared default)" : ""),
        ]
        if let week = report.week {
            let newBytes = week.newBytesPerDay.reduce(0, +)
            lines.append(
                "Week: days \(week.firstDay)-\(week.lastDay), \(Formatting.count(week.newImagesPerDay)) new images a day at the top of the feed "
                    + "(\(Formatting.bytes(newBytes)) in all, \(Formatting.bytes(week.newBytesPerDay.max() ?? 0)) at most a day); "
                    + "each day a new launch scrolls them (and \(Formatting.count(week.olderImagesPerDay)) older ones below); then the server stops and "
                    + "a new launch asks for day \(week.lastDay)'s \(Formatting.count(week.latestDayImages)) images. "
                    + "Disk budget for every approach: \(Formatting.bytes(week.diskBudget)) "
                    + "(\(Formatting.bytes(week.publishedBytes)) published by day \(week.lastDay))"
            )
        }
        lines.append("Build: \(report.buildConfiguration) (timings depend on it; counts do not)")
        return lines
    }

    private func table() -> [String] {
        let approaches = report.approaches
        var rows: [(String, [String])] = []
        rows.append(("Network requests", approaches.map { Formatting.count($0.networkRequests) }))
        for phase in DemoPhase.allCases {
            rows.append(("  " + phase.title, approaches.map { approach in
                let reports = approach.phases(phase)
                return reports.isEmpty ? "-" : Formatting.count(reports.reduce(0) { $0 + $1.networkRequests })
            }))
        }
        rows.append(("Bytes downloaded", approaches.map { Formatting.bytes($0.bytesDownloaded) }))
        rows.append(("Memory hits (decoded images)", approaches.map { Formatting.percent($0.memoryHitRatio) }))
        rows.append(("Disk / URLCache hits", approaches.map { Formatting.percent($0.diskHitRatio) }))
        rows.append(("Time to first image: cold", approaches.map { time($0.phase(.scroll)?.timeToFirstImage) }))
        let relaunches = approaches.map(\.relaunchTimesToFirstImage.count).max() ?? 0
        rows.append(("Time to first image: relaunch" + (relaunches > 1 ? " (median of \(relaunches))" : ""),
                     approaches.map { time($0.relaunchTimeToFirstImage) }))
        for source in [LoadSource.memory, .disk, .network] {
            rows.append(("Latency p50 / p99: \(source.rawValue)", approaches.map { latency($0.latency(source)) }))
            if source == .disk, approaches.contains(where: { $0.latencyOnCachedImageDiskViews != nil }) {
                rows.append(("  on CachedImage's disk views (same bytes)", approaches.map { latency($0.latencyOnCachedImageDiskViews) }))
            }
        }
        rows.append(("Offline launch: images shown", approaches.map { offline($0) }))
        rows.append(("  outdated (older than the server's)", approaches.map { $0.phase(.offline).map { Formatting.count($0.outdatedShown) } ?? "-" }))
        rows.append(("Stale images shown during a revalidation", approaches.map { Formatting.count($0.staleShown) }))

        let feed = report.feed
        rows.append(("Day 2 (\(Formatting.count(feed.changedOnDayTwo)) of \(Formatting.count(feed.images)) images changed)", approaches.map { _ in "" }))
        rows.append(("  outdated images shown", approaches.map { cell($0.phase(.dayTwo)) { Formatting.count($0.outdatedShown) } }))
        rows.append(("  conditional requests / 304s", approaches.map {
            cell($0.phase(.dayTwo)) { "\(Formatting.count($0.conditionalRequests)) / \(Formatting.count($0.notModified))" }
        }))
        rows.append(("  bytes downloaded", approaches.map { cell($0.phase(.dayTwo)) { Formatting.bytes($0.bytesDownloaded) } }))
        rows.append(("URL layouts (\(Formatting.count(feed.sharedNameImages)) URLs share a file name)", approaches.map { _ in "" }))
        rows.append(("  wrong images shown (all phases)", approaches.map { Formatting.count($0.wrongShown) }))
        rows.append(("Work per view (all phases)", approaches.map { _ in "" }))
        rows.append(("  decodes", approaches.map { Formatting.count($0.decodes) }))
        rows.append(("  decoded bytes", approaches.map { Formatting.bytes($0.decodedBytes) }))
        rows.append(("Disk after day 2 / budget", approaches.map { disk($0) }))
        if let fling = approaches.compactMap(\.fling).first {
            rows.append(("Fling (\(Formatting.count(fling.appearances)) views, then a screen back)", approaches.map { _ in "" }))
            rows.append(("  requests / bytes downloaded", approaches.map { cell($0.fling) {
                "\(Formatting.count($0.requests)) / \(Formatting.bytes($0.bytesDownloaded))"
            } }))
            rows.append(("  loads completed after leaving", approaches.map { cell($0.fling) { Formatting.count($0.completedAfterLeaving) } }))
            rows.append(("  peak decoded bytes alive", approaches.map { cell($0.fling) { Formatting.bytes($0.peakDecodedBytes) } }))
            rows.append(("  scroll-back requests", approaches.map { cell($0.fling) { Formatting.count($0.scrollBackRequests) } }))
        }
        for index in report.options.flingLinks.indices {
            rows += linkFlingRows(index)
        }
        if let week = report.week {
            rows += weekRows(week)
        }

        let labelWidth = rows.map(\.0.count).max() ?? 0
        var widths = approaches.map { max($0.approach.title.count, $0.approach.subtitle.count) }
        for (_, cells) in rows {
            for (column, cell) in cells.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ label: String, _ cells: [String]) -> String {
            var text = label.padding(toLength: labelWidth, withPad: " ", startingAt: 0)
            for (column, cell) in cells.enumerated() {
                text += "  " + String(repeating: " ", count: widths[column] - cell.count) + cell
            }
            return text
        }
        var lines = [
            line("", approaches.map(\.approach.title)),
            line("", approaches.map(\.approach.subtitle)),
            String(repeating: "-", count: labelWidth + widths.reduce(0) { $0 + $1 + 2 }),
        ]
        lines += rows.map { line($0.0, $0.1) }
        return lines
    }

    /// The fling on one of ``DemoOptions/flingLinks``: what it cost and how soon the stop screen
    /// filled, against the link's physical limit.
    private func linkFlingRows(_ index: Int) -> [(String, [String])] {
        let approaches = report.approaches
        let link = report.options.flingLinks[index]
        func fling(_ approach: ApproachReport) -> FlingReport? {
            approach.linkFlings.indices.contains(index) ? approach.linkFlings[index] : nil
        }
        guard let any = approaches.lazy.compactMap(fling).first else { return [] }
        let bandwidth = link.downlinkBitsPerSecond.map { Formatting.bitRate($0) } ?? "unlimited"
        var rows: [(String, [String])] = []
        rows.append(("Fling on \(link.name) (\(bandwidth), \(link.delayMilliseconds) ms each way)", approaches.map { _ in "" }))
        rows.append(("  requests / bytes downloaded", approaches.map { cell(fling($0)) {
            "\(Formatting.count($0.requests)) / \(Formatting.bytes($0.bytesDownloaded))"
        } }))
        rows.append(("  scroll-back requests", approaches.map { cell(fling($0)) { Formatting.count($0.scrollBackRequests) } }))
        rows.append(("  stop -> first image of the stop screen", approaches.map { cell(fling($0)) {
            $0.stopToFirstImage.map { Formatting.duration($0) } ?? "never"
        } }))
        rows.append(("  stop -> half the stop screen", approaches.map { cell(fling($0)) {
            $0.stopToHalf.map { Formatting.duration($0) } ?? "never"
        } }))
        rows.append(("  stop -> stop screen complete (x limit)", approaches.map { cell(fling($0)) { report in
            guard let complete = report.stopToComplete else { return "never" }
            return "\(Formatting.duration(complete)) (\(String(format: "%.2f", report.completeOverLimit ?? 0))x)"
        } }))
        rows.append(("  physical limit: RTT + \(Formatting.bytes(any.stopScreenBytes)) / bandwidth", approaches.map { cell(fling($0)) {
            Formatting.duration($0.physicalLimit)
        } }))
        return rows
    }

    /// The week's group: what the launches cost, disk use against the shared budget at the end,
    /// and the latest day's images shown offline.
    private func weekRows(_ week: DemoReport.Week) -> [(String, [String])] {
        let approaches = report.approaches
        var rows: [(String, [String])] = []
        rows.append(("Week (days \(week.firstDay)-\(week.lastDay), \(Formatting.count(week.newImagesPerDay)) new images a day)", approaches.map { _ in "" }))
        rows.append(("  requests / bytes downloaded", approaches.map { cell($0.week) {
            "\(Formatting.count($0.networkRequests)) / \(Formatting.bytes($0.bytesDownloaded))"
        } }))
        rows.append(("  outdated / wrong images shown", approaches.map { cell($0.week) {
            "\(Formatting.count($0.outdatedShown)) / \(Formatting.count($0.wrongShown))"
        } }))
        rows.append(("  disk growth over the week", approaches.map { cell($0.week) {
            ($0.diskGrowth >= 0 ? "+" : "-") + Formatting.bytes(abs($0.diskGrowth))
        } }))
        rows.append(("  disk at the end / \(Formatting.bytes(week.diskBudget)) budget", approaches.map { cell($0.week) {
            "\(Formatting.bytes($0.diskUsage)) (\(Formatting.percent(Double($0.diskUsage) / Double(max($0.diskBudget, 1)))))"
        } }))
        rows.append(("  day \(week.lastDay) offline: images shown (current)", approaches.map { cell($0.week) {
            let ratio = Double($0.latestDayShownOffline) / Double(max($0.latestDayImages, 1))
            return "\(Formatting.count($0.latestDayShownOffline))/\(Formatting.count($0.latestDayImages)) (\(Formatting.percent(ratio)))"
        } }))
        rows.append(("    wrong / outdated / not shown", approaches.map { cell($0.week) {
            "\(Formatting.count($0.latestDayWrongOffline)) / \(Formatting.count($0.latestDayOutdatedOffline)) / \(Formatting.count($0.latestDayNotShownOffline))"
        } }))
        return rows
    }

    private func summary() -> [String] {
        report.comparisons.map { comparison in
            let verdict: String
            if comparison.baselineRequests == comparison.cachedImageRequests {
                verdict = "the same"
            } else if comparison.cachedImageRequests == 0 {
                verdict = "CachedImage made none"
            } else if comparison.baselineRequests > comparison.cachedImageRequests {
                verdict = "\(Formatting.factor(comparison.factor)) fewer"
            } else {
                verdict = "\(Formatting.factor(1 / max(comparison.factor, .leastNonzeroMagnitude))) more"
            }
            var line = "CachedImage: \(Formatting.count(comparison.cachedImageRequests)) requests, "
                + "\(comparison.baseline.title): \(Formatting.count(comparison.baselineRequests)) requests, \(verdict) "
                + "(\(Formatting.bytes(comparison.cachedImageBytes)) vs \(Formatting.bytes(comparison.baselineBytes)))"
            let wins = self.wins(against: comparison.baseline)
            if !wins.isEmpty { line += "; " + wins.joined(separator: ", ") }
            return line
        }
    }

    /// The other metrics where CachedImage did better than `baseline`, each with both figures.
    private func wins(against baseline: DemoApproach) -> [String] {
        guard let ours = report.approach(.cachedImage), let theirs = report.approach(baseline) else { return [] }
        var wins: [String] = []
        if theirs.outdatedShown > ours.outdatedShown {
            wins.append("outdated images shown \(Formatting.count(ours.outdatedShown)) vs \(Formatting.count(theirs.outdatedShown))")
        }
        if theirs.wrongShown > ours.wrongShown {
            wins.append("wrong images shown \(Formatting.count(ours.wrongShown)) vs \(Formatting.count(theirs.wrongShown))")
        }
        // A factor that rounds to 1.0x is not a win worth a line.
        if Double(theirs.decodes) >= 1.05 * Double(ours.decodes) {
            let factor = Double(theirs.decodes) / Double(max(ours.decodes, 1))
            wins.append("\(Formatting.factor(factor)) fewer decodes (\(Formatting.count(ours.decodes)) vs \(Formatting.count(theirs.decodes)))")
        }
        if theirs.offlineShown < ours.offlineShown {
            wins.append("offline \(Formatting.count(ours.offlineShown)) images shown vs \(Formatting.count(theirs.offlineShown))")
        }
        if let ourWeek = ours.week, let theirWeek = theirs.week {
            if ourWeek.isWithinBudget, !theirWeek.isWithinBudget {
                let over = Double(theirWeek.diskUsage) / Double(max(theirWeek.diskBudget, 1))
                wins.append("after the week \(Formatting.bytes(ourWeek.diskUsage)) on disk, within the \(Formatting.bytes(ourWeek.diskBudget)) budget, "
                    + "vs \(Formatting.bytes(theirWeek.diskUsage)) (\(Formatting.factor(over)) the budget)")
            }
            if theirWeek.latestDayShownOffline < ourWeek.latestDayShownOffline {
                wins.append("day \(ourWeek.latestDay) offline \(Formatting.count(ourWeek.latestDayShownOffline)) of \(Formatting.count(ourWeek.latestDayImages)) "
                    + "images shown vs \(Formatting.count(theirWeek.latestDayShownOffline))")
            }
        }
        return wins
    }

    // MARK: Cells

    private func cell<Report>(_ report: Report?, _ text: (Report) -> String) -> String {
        report.map(text) ?? "-"
    }

    private func disk(_ approach: ApproachReport) -> String {
        let budget = approach.diskBudget.map { $0 == 0 ? "none kept" : Formatting.bytes($0) } ?? "no limit"
        return "\(Formatting.bytes(approach.diskUsage)) / \(budget)"
    }

    private func time(_ seconds: Double?) -> String {
        seconds.map(Formatting.duration) ?? "-"
    }

    private func latency(_ summary: LatencySummary?) -> String {
        guard let summary else { return "-" }
        return "\(Formatting.duration(summary.p50)) / \(Formatting.duration(summary.p99))"
    }

    private func offline(_ approach: ApproachReport) -> String {
        guard approach.offlineViews > 0 else { return "-" }
        let ratio = Double(approach.offlineShown) / Double(approach.offlineViews)
        return "\(Formatting.count(approach.offlineShown))/\(Formatting.count(approach.offlineViews)) (\(Formatting.percent(ratio)))"
    }
}
