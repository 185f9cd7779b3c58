import ArgumentParser
import Foundation
import LoopbackServer

/// `cachedimage demo`: CachedImage against AsyncImage's URLCache, a documents directory and
/// NSCache, on the same feed and the same scroll session, measured side by side.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Compare CachedImage with naive image loading on a replayed scroll session.",
        discussion: """
        Generates a feed of real PNG and JPEG images, serves it from an embedded HTTP server on \
        127.0.0.1 (ETag, Last-Modified, Cache-Control: max-age, a fixed latency per request), and \
        replays one scroll session through each approach in turn:

          1. launch 1: scroll down (now and then back a bit), then up to the top
          2. relaunch: a new client on the same cache directory, same scroll
          3. day 2: the simulated clock moves past max-age and the server replaces a tenth of \
        the images (new bytes, new ETag); a new client, same scroll
          4. offline: the server is stopped; another new client, same scroll
          5. week: the server is back; each day (3 to 2 + --week-days) it publishes \
        --new-images-per-day new images at the top of the feed, the clock moves a day, and a new \
        client scrolls the newest images (and a few older ones below)
          6. week offline: the server is stopped; a new client asks for each of the latest \
        day's images

        Avatars and photos use URLs whose last path component repeats \
        (/users/<id>/avatar.png, /posts/<id>/original.jpg). Every view's bytes are compared with \
        what the server holds: outdated (an older version of the same URL) or wrong (another \
        URL's bytes). Decodes, conditional requests, 304s and disk use are counted per approach; \
        after the week, each approach's disk use is compared with one budget (--disk-limit, \
        CachedImage's disk cache limit) and the latest day's images it shows offline are counted.

        Approaches: CachedImage (ImagePipeline); AsyncImage-like (URLSession and a URLCache with \
        the default shared capacities, no cache of decoded images; on Linux, where URLSession \
        ignores URLCache, a model of URLCache's documented rules); files in a directory named by \
        lastPathComponent, no memory cache; NSCache only, with CachedImage's memory budget.

        Every number is measured: requests and bytes by the server, latencies by the client. \
        Progress goes to standard error; the table (or --json) to standard output.
        """
    )

    @Option(name: .customLong("images"), help: ArgumentHelp("Images in the feed.", valueName: "count"))
    var imageCount = 300

    @Option(name: .customLong("trace-length"), help: ArgumentHelp("Image views (cells appearing) in the first launch's scroll down.", valueName: "views"))
    var traceLength = 600

    @Option(name: .customLong("latency"), help: ArgumentHelp("Server latency per request, in milliseconds.", valueName: "ms"))
    var latencyMilliseconds = 20

    @Option(name: .customLong("max-age"), help: ArgumentHelp("Cache-Control max-age the server sends, in seconds.", valueName: "seconds"))
    var maxAge = 86_400

    @Option(name: .customLong("memory-limit"), help: ArgumentHelp("Memory budget for decoded images (CachedImage's memory cache and the NSCache baseline).", valueName: "MB"))
    var memoryLimitMB = 50

    @Option(name: .customLong("disk-limit"), help: ArgumentHelp("CachedImage's disk cache limit, and the disk budget every approach is compared with after the week.", valueName: "MB"))
    var diskLimitMB = 40

    @Option(name: .customLong("week-days"), help: ArgumentHelp("Days of use after day 2 (days 3, 4, ...); 0 leaves the week out.", valueName: "days"))
    var weekDays = 5

    @Option(name: .customLong("new-images-per-day"), help: ArgumentHelp("Images the feed publishes each day of the week.", valueName: "count"))
    var newImagesPerDay = 150

    @Option(name: .customLong("urlcache-memory-limit"), help: ArgumentHelp("URLCache memory capacity of the AsyncImage-like baseline. (default: URLCache.shared's, 4 MiB)", valueName: "MB"))
    var urlCacheMemoryMB: Int?

    @Option(name: .customLong("urlcache-disk-limit"), help: ArgumentHelp("URLCache disk capacity of the AsyncImage-like baseline. (default: URLCache.shared's, 20 MiB)", valueName: "MB"))
    var urlCacheDiskMB: Int?

    @Option(name: .customLong("relaunch-probes"), help: ArgumentHelp("Extra relaunches that show only the first screen (on a copy of each approach's cache); the relaunch's time to first image is the median over them and the relaunch phase.", valueName: "count"))
    var relaunchProbes = 10

    @Option(help: ArgumentHelp("Columns of the feed's grid.", valueName: "count"))
    var columns = 3

    @Option(name: .customLong("visible-rows"), help: ArgumentHelp("Grid rows on screen at once.", valueName: "count"))
    var visibleRows = 4

    @Option(help: ArgumentHelp("The network link the server emulates in every phase: \(LinkProfile.all.map(\.name).joined(separator: ", ")) (Network Link Conditioner's presets: a downlink shared by all connections, a delay each way, loss).", valueName: "name"))
    var link = LinkProfile.loopback.name

    @Option(name: .customLong("fling-links"), help: ArgumentHelp("Links the fling runs on again, comma-separated (each from empty caches; stop screen timed against the link's physical limit); \"none\" for none.", valueName: "names"))
    var flingLinks = "lte,3g"

    @Option(name: .customLong("fling-rows"), help: ArgumentHelp("Rows the fling moves down, one per 16 ms frame; 0 skips the fling.", valueName: "count"))
    var flingRows = 60

    @Option(name: .customLong("download-slots"), help: ArgumentHelp("CachedImage's maximumConcurrentDownloads and connections per host. (default: the pipeline's)", valueName: "count"))
    var downloadSlots: Int?

    @Flag(name: .customLong("fling-only"), help: "Run only the flings (no launches, offline phases or week).")
    var flingOnly = false

    @Option(help: ArgumentHelp("Seed for the generated feed and the scroll session.", valueName: "number"))
    var seed: UInt64 = 1

    @Flag(name: .customLong("keep-caches"), help: "Keep the caches in the temporary directory after the run and print where.")
    var keepCaches = false

    @Flag(help: "Print the measurements as JSON instead of the table.")
    var json = false

    var options: DemoOptions {
        var options = DemoOptions()
        options.imageCount = imageCount
        options.traceLength = traceLength
        options.latencyMilliseconds = latencyMilliseconds
        options.maxAge = maxAge
        options.memoryLimit = memoryLimitMB * 1_000_000
        options.diskLimit = diskLimitMB * 1_000_000
        options.weekDays = weekDays
        options.newImagesPerDay = newImagesPerDay
        options.urlCacheMemoryLimit = urlCacheMemoryMB.map { $0 * 1_000_000 }
        options.urlCacheDiskLimit = urlCacheDiskMB.map { $0 * 1_000_000 }
        options.relaunchProbes = relaunchProbes
        options.columns = columns
        options.visibleRows = visibleRows
        options.seed = seed
        options.keepCaches = keepCaches
        options.link = LinkProfile.named(link) ?? .loopback
        options.flingLinks = flingLinks == "none" ? [] : flingLinks.split(separator: ",").compactMap { LinkProfile.named(String($0)) }
        options.flingRows = flingRows
        options.flingOnly = flingOnly
        options.downloadSlots = downloadSlots
        return options
    }

    func validate() throws {
        let names = [link] + (flingLinks == "none" ? [] : flingLinks.split(separator: ",").map(String.init))
        if let unknown = names.first(where: { LinkProfile.named($0) == nil }) {
            throw ValidationError("unknown link \"\(unknown)\": use one of \(LinkProfile.all.map(\.name).joined(separator: ", "))")
        }
        do {
            try options.validate()
        } catch let error as CLIError {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        let report = try await DemoRunner(options: options).run()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(report)
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(DemoTable(report: report).render(), terminator: "")
        }
        if let directory = report.cacheDirectory {
            StandardError.line("Caches kept in \(directory)")
        }
    }
}
