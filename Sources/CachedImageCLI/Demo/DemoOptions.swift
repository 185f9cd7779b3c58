import Foundation
import LoopbackServer

/// Everything that shapes a demo run. The defaults are what `cachedimage demo` runs; tests use a
/// small feed and a short session.
///
/// ```swift
/// var options = DemoOptions()
/// options.imageCount = 24
/// options.traceLength = 60
/// let report = try await DemoRunner(options: options).run()
/// ```
public struct DemoOptions: Sendable, Hashable, Codable {
    /// Images in the feed. Default 300.
    public var imageCount = 300
    /// Image views (cells appearing on screen) in the first launch's scroll. Default 600: the
    /// user scrolls to the end of the feed, scrolling back a little now and then.
    public var traceLength = 600
    /// Server latency per request, in milliseconds. Default 20.
    public var latencyMilliseconds = 20
    /// `Cache-Control: max-age` the server sends, in seconds. Default one day.
    public var maxAge = 86_400
    /// Memory budget for decoded images, in bytes, for CachedImage's memory cache and the
    /// `NSCache` baseline alike. Default 50 MB.
    public var memoryLimit = 50 * 1_000_000
    /// CachedImage's disk cache limit, in bytes, and the disk budget every approach's use is
    /// compared with at the end of the week. Default 40 MB: more than day 1's feed (the first two
    /// days run without eviction) and than any day's new images, less than the week publishes.
    public var diskLimit = 40 * 1_000_000
    /// Days of use after day 2 (days 3, 4, …): each day the feed grows by ``newImagesPerDay``
    /// images at the top and each approach launches anew to scroll them. Default 5 (days 3-7, a
    /// week in all); 0 leaves the week out.
    public var weekDays = 5
    /// Images published each day of the week. Default 150.
    public var newImagesPerDay = 150
    /// The `URLCache` memory capacity of the AsyncImage-like baseline; `nil` is the platform's
    /// `URLCache.shared` default.
    public var urlCacheMemoryLimit: Int?
    /// The `URLCache` disk capacity of the AsyncImage-like baseline; `nil` is the platform's
    /// `URLCache.shared` default.
    public var urlCacheDiskLimit: Int?
    /// Columns of the feed's grid. Default 3.
    public var columns = 3
    /// Rows visible at once. Default 4 (12 cells on screen).
    public var visibleRows = 4
    /// The pixel size images are displayed at (decoded to fit inside). Default 390x390, a third
    /// of a phone's width at 3x.
    public var cellPixels = 390
    /// Extra relaunches, after the relaunch phase, that show only the first screen, each a new
    /// client over a copy of the approach's directory: the time to the first image on relaunch
    /// is the median over them and the relaunch phase. Default 10; 0 keeps the relaunch phase's
    /// single sample.
    public var relaunchProbes = 10
    /// Rows the fling moves down, one row per 16 ms frame (bounded by the feed), before a short
    /// scroll back of one screen; each approach flings from empty caches. Default 60; 0 skips
    /// the fling.
    public var flingRows = 60
    /// The network link the demo's server emulates (``LinkProfile``: a shared downlink, a delay
    /// each way, loss) in every phase, on top of ``latencyMilliseconds``. Default: the plain
    /// loopback.
    public var link = LinkProfile.loopback
    /// Links the fling runs on again, after the fling on ``link``, each from empty caches with
    /// no server latency but the link's. Default LTE and 3G; empty: none.
    public var flingLinks: [LinkProfile] = [.lte, .threeG]
    /// CachedImage's ``ImagePipeline/Configuration/maximumConcurrentDownloads`` (and its session's
    /// connections per host); `nil`: the pipeline's default. For measuring the slot count.
    public var downloadSlots: Int?
    /// Run only the flings (no launches, no offline phases, no week). Default `false`.
    public var flingOnly = false
    /// Selects the generated feed and the scroll session. Default 1.
    public var seed: UInt64 = 1
    /// Keep the cache directories after the run (their path is printed). Default `false`.
    public var keepCaches = false

    /// The default options.
    public init() {}

    /// Checks the values, throwing a ``CLIError`` that names the offending flag.
    public func validate() throws {
        guard (1...5_000).contains(imageCount) else { throw CLIError("--images must be between 1 and 5000 (got \(imageCount))") }
        guard (1...100_000).contains(traceLength) else { throw CLIError("--trace-length must be between 1 and 100000 (got \(traceLength))") }
        guard (0...10_000).contains(latencyMilliseconds) else { throw CLIError("--latency must be between 0 and 10000 ms (got \(latencyMilliseconds))") }
        guard maxAge >= 0 else { throw CLIError("--max-age must not be negative (got \(maxAge))") }
        guard memoryLimit >= 0 else { throw CLIError("--memory-limit must not be negative") }
        guard diskLimit >= 0 else { throw CLIError("--disk-limit must not be negative") }
        guard (0...30).contains(weekDays) else { throw CLIError("--week-days must be between 0 and 30 (got \(weekDays))") }
        guard (1...2_000).contains(newImagesPerDay) else {
            throw CLIError("--new-images-per-day must be between 1 and 2000 (got \(newImagesPerDay))")
        }
        guard (urlCacheMemoryLimit ?? 0) >= 0, (urlCacheDiskLimit ?? 0) >= 0 else {
            throw CLIError("URLCache limits must not be negative")
        }
        guard (0...100).contains(relaunchProbes) else { throw CLIError("--relaunch-probes must be between 0 and 100 (got \(relaunchProbes))") }
        guard (1...12).contains(columns) else { throw CLIError("--columns must be between 1 and 12 (got \(columns))") }
        guard (1...50).contains(visibleRows) else { throw CLIError("--visible-rows must be between 1 and 50 (got \(visibleRows))") }
        guard (0...5_000).contains(flingRows) else { throw CLIError("--fling-rows must be between 0 and 5000 (got \(flingRows))") }
        guard (1...64).contains(downloadSlots ?? 1) else { throw CLIError("--download-slots must be between 1 and 64") }
        guard (16...4_096).contains(cellPixels) else { throw CLIError("--cell-pixels must be between 16 and 4096 (got \(cellPixels))") }
    }
}
