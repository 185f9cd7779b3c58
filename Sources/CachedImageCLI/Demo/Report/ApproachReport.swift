/// Everything measured for one approach over the whole session.
public struct ApproachReport: Sendable, Hashable, Codable {
    public var approach: DemoApproach
    public var phases: [PhaseReport]
    /// Requests the server received, over all phases.
    public var networkRequests: Int
    /// Body bytes the server sent, over all phases.
    public var bytesDownloaded: Int
    /// Views in the phases with the server up (every phase but the offline ones).
    public var onlineViews: Int
    /// Share of online views answered from a memory cache of decoded images.
    public var memoryHitRatio: Double
    /// Share of online views answered from this device's storage (disk cache, files, URLCache).
    public var diskHitRatio: Double
    /// Latency per source over the online phases; keys are ``LoadSource`` raw values.
    public var latency: [String: LatencySummary]
    /// Latency on the views CachedImage served from its disk cache (online phases) where every
    /// approach showed the server's current bytes, whatever this approach served them from: the
    /// same bytes at the same places of the session, for every approach. ``latency`` compares
    /// different views (CachedImage reads its disk only on a memory miss, the documents directory
    /// on every view), and a view that showed an older version or another URL's file read other
    /// bytes. `nil` when CachedImage did not run.
    public var latencyOnCachedImageDiskViews: LatencySummary?
    /// Time to the first image of each relaunch, in seconds: the relaunch phase's, then the
    /// ``DemoOptions/relaunchProbes``'.
    public var relaunchTimesToFirstImage: [Double]
    /// Views shown in the offline launch, and views attempted.
    public var offlineShown: Int
    public var offlineViews: Int
    /// Views, over all phases, that showed an older version than the server's.
    public var outdatedShown: Int
    /// Views, in all phases, that showed a stored image at once while it was revalidated.
    public var staleShown: Int
    /// Views, over all phases, that showed another URL's bytes.
    public var wrongShown: Int
    /// Decodes and decoded bytes over all phases.
    public var decodes: Int
    public var decodedBytes: Int
    /// Bytes the approach left on disk after day 2's session and the offline launch (before the
    /// week; ``WeekReport/diskUsage`` is the end of the week).
    public var diskUsage: Int
    /// The disk budget the approach enforces; `nil` when it has none.
    public var diskBudget: Int?
    /// The week of use after day 2, when it ran.
    public var week: WeekReport?
    /// The fling (a fast scroll from empty caches, then a short scroll back), when it ran.
    public var fling: FlingReport?
    /// The fling again on each of ``DemoOptions/flingLinks`` (LTE, 3G), in that order.
    public var linkFlings: [FlingReport]

    init(
        approach: DemoApproach,
        phases: [PhaseReport],
        latencies: [LoadSource: [Double]],
        latencyOnCachedImageDiskViews: LatencySummary? = nil,
        relaunchTimesToFirstImage: [Double] = [],
        diskUsage: Int = 0,
        diskBudget: Int? = nil,
        fling: FlingReport? = nil,
        linkFlings: [FlingReport] = [],
        week: WeekReport? = nil
    ) {
        self.fling = fling
        self.linkFlings = linkFlings
        self.latencyOnCachedImageDiskViews = latencyOnCachedImageDiskViews
        self.relaunchTimesToFirstImage = relaunchTimesToFirstImage
        self.diskUsage = diskUsage
        self.diskBudget = diskBudget
        self.week = week
        outdatedShown = phases.reduce(0) { $0 + $1.outdatedShown }
        wrongShown = phases.reduce(0) { $0 + $1.wrongShown }
        staleShown = phases.reduce(0) { $0 + $1.staleShown }
        decodes = phases.reduce(0) { $0 + $1.decodes }
        decodedBytes = phases.reduce(0) { $0 + $1.decodedBytes }
        self.approach = approach
        self.phases = phases
        networkRequests = phases.reduce(0) { $0 + $1.networkRequests }
        bytesDownloaded = phases.reduce(0) { $0 + $1.bytesDownloaded }
        let online = phases.filter { !$0.phase.isOffline }
        onlineViews = online.reduce(0) { $0 + $1.views }
        let denominator = Double(max(onlineViews, 1))
        memoryHitRatio = Double(online.reduce(0) { $0 + $1.memoryHits }) / denominator
        diskHitRatio = Double(online.reduce(0) { $0 + $1.diskHits }) / denominator
        var summaries: [String: LatencySummary] = [:]
        for (source, samples) in latencies where source != .failed {
            summaries[source.rawValue] = LatencySummary(samples)
        }
        latency = summaries
        let offline = phases.filter { $0.phase == .offline }
        offlineShown = offline.reduce(0) { $0 + $1.shown }
        offlineViews = offline.reduce(0) { $0 + $1.views }
    }

    /// The report of `phase`, if it ran (for ``DemoPhase/week``, its first day).
    public func phase(_ phase: DemoPhase) -> PhaseReport? {
        phases.first { $0.phase == phase }
    }

    /// Every report of `phase`: one per day for ``DemoPhase/week``, at most one for the others.
    public func phases(_ phase: DemoPhase) -> [PhaseReport] {
        phases.filter { $0.phase == phase }
    }

    /// The median time to the first image over the relaunches, if any showed one.
    public var relaunchTimeToFirstImage: Double? {
        LatencySummary(relaunchTimesToFirstImage)?.p50
    }

    /// Latency percentiles of views served by `source`, if any were.
    public func latency(_ source: LoadSource) -> LatencySummary? {
        latency[source.rawValue]
    }
}
