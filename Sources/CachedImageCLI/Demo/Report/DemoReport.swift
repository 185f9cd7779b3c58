/// The result of a demo run: the settings, the feed, the session, and every approach's measurements.
public struct DemoReport: Sendable, Hashable, Codable {
    /// The feed the server served.
    public struct Feed: Sendable, Hashable, Codable {
        public var images: Int
        public var pngImages: Int
        public var jpegImages: Int
        /// Bytes to download every image once.
        public var totalBytes: Int
        public var smallestBytes: Int
        public var largestBytes: Int
        /// Images whose URL's last path component repeats (`/users/<id>/avatar.png`, `/posts/<id>/original.jpg`).
        public var sharedNameImages: Int
        /// Images the server replaced (new bytes, new ETag) on day 2.
        public var changedOnDayTwo: Int
    }

    /// The replayed session.
    public struct Session: Sendable, Hashable, Codable {
        /// Cell appearances while scrolling down in the first launch (replayed on relaunch and offline).
        public var scrollViews: Int
        /// Distinct images among them: what an ideal cache downloads once.
        public var uniqueImages: Int
        /// Cell appearances while scrolling back to the top.
        public var backToTopViews: Int
    }

    /// The week of use after day 2: how the feed grew and what each day's launch scrolled.
    public struct Week: Sendable, Hashable, Codable {
        /// The first and the last day (3 and 2 + ``DemoOptions/weekDays``).
        public var firstDay: Int
        public var lastDay: Int
        /// Images published at the top of the feed each day.
        public var newImagesPerDay: Int
        /// Bytes of each day's new images, first day first.
        public var newBytesPerDay: [Int]
        /// Older images below each day's batch that the day's window includes.
        public var olderImagesPerDay: Int
        /// Cell appearances and distinct images in each day's scroll, first day first.
        public var viewsPerDay: [Int]
        public var distinctImagesPerDay: [Int]
        /// Bytes of every version the server published by the last day: day 1's feed, day 2's
        /// changed versions and every day's batch. More than ``diskBudget``: keeping everything
        /// does not fit.
        public var publishedBytes: Int
        /// The disk budget every approach is compared with (CachedImage's disk cache limit).
        public var diskBudget: Int
        /// Images the offline check asks for: the last day's batch.
        public var latestDayImages: Int
    }

    /// CachedImage's request count against one baseline's.
    public struct Comparison: Sendable, Hashable, Codable {
        public var baseline: DemoApproach
        public var baselineRequests: Int
        public var cachedImageRequests: Int
        /// `baselineRequests / cachedImageRequests`.
        public var factor: Double
        public var baselineBytes: Int
        public var cachedImageBytes: Int
    }

    public var options: DemoOptions
    public var feed: Feed
    public var session: Session
    /// The week of use, when it ran (``DemoOptions/weekDays`` > 0).
    public var week: Week?
    /// The `URLCache` capacities the AsyncImage-like baseline used, in bytes.
    public var urlCacheMemoryCapacity: Int
    public var urlCacheDiskCapacity: Int
    public var approaches: [ApproachReport]
    /// Wall time of the whole run, feed generation included, in seconds.
    public var duration: Double
    /// Where the caches were kept, when ``DemoOptions/keepCaches`` is set.
    public var cacheDirectory: String?
    /// `debug` or `release`: how this program was compiled (timings depend on it).
    public var buildConfiguration: String

    /// The report for `approach`, if it ran.
    public func approach(_ approach: DemoApproach) -> ApproachReport? {
        approaches.first { $0.approach == approach }
    }

    /// CachedImage against each baseline, in table order.
    public var comparisons: [Comparison] {
        guard let cachedImage = approach(.cachedImage) else { return [] }
        return approaches.filter { $0.approach != .cachedImage }.map { baseline in
            Comparison(
                baseline: baseline.approach,
                baselineRequests: baseline.networkRequests,
                cachedImageRequests: cachedImage.networkRequests,
                factor: Double(baseline.networkRequests) / Double(max(cachedImage.networkRequests, 1)),
                baselineBytes: baseline.bytesDownloaded,
                cachedImageBytes: cachedImage.bytesDownloaded
            )
        }
    }
}

extension DemoReport {
    private enum CodingKeys: String, CodingKey {
        case options, feed, session, week, urlCacheMemoryCapacity, urlCacheDiskCapacity, approaches, comparisons, duration, cacheDirectory, buildConfiguration
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(options, forKey: .options)
        try container.encode(feed, forKey: .feed)
        try container.encode(session, forKey: .session)
        try container.encodeIfPresent(week, forKey: .week)
        try container.encode(urlCacheMemoryCapacity, forKey: .urlCacheMemoryCapacity)
        try container.encode(urlCacheDiskCapacity, forKey: .urlCacheDiskCapacity)
        try container.encode(approaches, forKey: .approaches)
        try container.encode(comparisons, forKey: .comparisons)
        try container.encode(duration, forKey: .duration)
        try container.encodeIfPresent(cacheDirectory, forKey: .cacheDirectory)
        try container.encode(buildConfiguration, forKey: .buildConfiguration)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        options = try container.decode(DemoOptions.self, forKey: .options)
        feed = try container.decode(Feed.self, forKey: .feed)
        session = try container.decode(Session.self, forKey: .session)
        week = try container.decodeIfPresent(Week.self, forKey: .week)
        urlCacheMemoryCapacity = try container.decode(Int.self, forKey: .urlCacheMemoryCapacity)
        urlCacheDiskCapacity = try container.decode(Int.self, forKey: .urlCacheDiskCapacity)
        approaches = try container.decode([ApproachReport].self, forKey: .approaches)
        duration = try container.decode(Double.self, forKey: .duration)
        cacheDirectory = try container.decodeIfPresent(String.self, forKey: .cacheDirectory)
        buildConfiguration = try container.decode(String.self, forKey: .buildConfiguration)
    }
}
