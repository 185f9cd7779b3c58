/// Everything measured for one approach over the whole session.
public struct ApproachReport: Sendable, Hashable, Codable {
    public var approach: DemoApproach
    public var phases: [PhaseReport]
    /// Requests the server received, over all phases.
    public var networkRequests: Int
    /// Body bytes the server sent, over all phases.
    public var bytesDownloaded: Int
    /// Views in the online phases (first launch and relaunch).
    public var onlineViews: Int
    /// Share of online views answered from a memory cache of decoded images.
    public var memoryHitRatio: Double
    /// Share of online views answered from this device's storage (disk cache, files, URLCache).
    public var diskHitRatio: Double
    /// Latency per source over the online phases; keys are ``LoadSource`` raw values.
    public var latency: [String: LatencySummary]
    /// Views shown in the offline launch, and views attempted.
    public var offlineShown: Int
    public var offlineViews: Int

    init(approach: DemoApproach, phases: [PhaseReport], latencies: [LoadSource: [Double]]) {
        self.approach = approach
        self.phases = phases
        networkRequests = phases.reduce(0) { $0 + $1.networkRequests }
        bytesDownloaded = phases.reduce(0) { $0 + $1.bytesDownloaded }
        let online = phases.filter { $0.phase != .offline }
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

    /// The report of `phase`, if it ran.
    public func phase(_ phase: DemoPhase) -> PhaseReport? {
        phases.first { $0.phase == phase }
    }

    /// Latency percentiles of views served by `source`, if any were.
    public func latency(_ source: LoadSource) -> LatencySummary? {
        latency[source.rawValue]
    }
}
