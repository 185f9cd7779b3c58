/// What one approach did over the week of use after day 2, and what it had left at the end:
/// its disk use against the budget every approach is given, and how many of the latest day's
/// images it could still show with the server gone.
public struct WeekReport: Sendable, Hashable, Codable {
    /// Days of use (one launch each).
    public var days: Int
    /// Requests the server received and body bytes it sent over the week's launches.
    public var networkRequests: Int
    public var bytesDownloaded: Int
    /// Views over the week's launches that showed an older version than the server's, or
    /// another URL's bytes.
    public var outdatedShown: Int
    public var wrongShown: Int
    /// Bytes the approach had on disk before the week (after day 2), at the end of each day
    /// (first day first), and at the end of the week.
    public var diskUsageBefore: Int
    public var diskUsagePerDay: [Int]
    public var diskUsage: Int
    /// The disk budget every approach is compared with (CachedImage's disk cache limit).
    public var diskBudget: Int
    /// The latest day of the week, and how many images it published.
    public var latestDay: Int
    public var latestDayImages: Int
    /// Of the latest day's images, asked for once each with the server gone: shown with the
    /// server's current bytes, shown with an older version, shown with another URL's bytes, not
    /// shown.
    public var latestDayShownOffline: Int
    public var latestDayOutdatedOffline: Int
    public var latestDayWrongOffline: Int
    public var latestDayNotShownOffline: Int

    /// Whether ``diskUsage`` is within ``diskBudget``.
    public var isWithinBudget: Bool { diskUsage <= diskBudget }
    /// What the week added on disk (negative when eviction freed more than it stored).
    public var diskGrowth: Int { diskUsage - diskUsageBefore }

    /// Sums the week's day phases and reads the offline check.
    ///
    /// - Parameters:
    ///   - days: The approach's ``DemoPhase/week`` reports, one per day.
    ///   - offline: Its ``DemoPhase/weekOffline`` report.
    init(days: [PhaseReport], offline: PhaseReport, latestDay: Int, diskUsageBefore: Int, diskUsage: Int, diskBudget: Int) {
        self.days = days.count
        networkRequests = days.reduce(0) { $0 + $1.networkRequests }
        bytesDownloaded = days.reduce(0) { $0 + $1.bytesDownloaded }
        outdatedShown = days.reduce(0) { $0 + $1.outdatedShown }
        wrongShown = days.reduce(0) { $0 + $1.wrongShown }
        self.diskUsageBefore = diskUsageBefore
        diskUsagePerDay = days.map { $0.diskUsageAfterLaunch ?? 0 }
        self.diskUsage = diskUsage
        self.diskBudget = diskBudget
        self.latestDay = latestDay
        latestDayImages = offline.views
        latestDayOutdatedOffline = offline.outdatedShown
        latestDayWrongOffline = offline.wrongShown
        latestDayNotShownOffline = offline.failures
        latestDayShownOffline = offline.shown - offline.outdatedShown - offline.wrongShown
    }
}
